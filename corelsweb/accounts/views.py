from django.contrib.auth import login
from django.contrib.auth.views import LoginView
from django.shortcuts import redirect, render

from corelsweb.accounts import throttle
from corelsweb.accounts.forms import SignupForm


def signup(request):
    if request.user.is_authenticated:
        return redirect("home")
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        return redirect("home")
    return render(request, "registration/signup.html", {"form": form}, status=400 if form.errors else 200)


class ThrottledLoginView(LoginView):
    """Sign-in; django-axes locks a username at an address, and an address that fails far too often is refused."""

    def post(self, request, *args, **kwargs):
        if throttle.address_locked(request):
            return throttle.locked_out(request)
        return super().post(request, *args, **kwargs)
