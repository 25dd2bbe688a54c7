from django.conf import settings
from django.contrib.auth import login
from django.contrib.auth.views import LoginView
from django.shortcuts import redirect, render

from corelsweb.accounts.forms import SignupForm
from corelsweb.security import client_ip, hit, over_limit


def signup(request):
    if request.user.is_authenticated:
        return redirect("home")
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user)
        return redirect("home")
    return render(request, "registration/signup.html", {"form": form}, status=400 if form.errors else 200)


class RateLimitedLoginView(LoginView):
    """Sign-in that refuses further attempts after too many failures for one username or address."""

    def post(self, request, *args, **kwargs):
        limit, window = settings.CORELSWEB_LOGIN_FAILURES, settings.CORELSWEB_LOGIN_WINDOW_SECONDS
        keys = [f"login-ip:{client_ip(request)}", f"login-user:{request.POST.get('username', '').lower()[:150]}"]
        if any(over_limit(k, limit) for k in keys):
            response = render(request, "registration/login.html", {"form": self.get_form(), "locked": True},
                              status=429)
            response["Retry-After"] = str(window)
            return response
        response = super().post(request, *args, **kwargs)
        if response.status_code != 302:  # a failed attempt
            for key in keys:
                hit(key, limit, window)
        return response
