"""The Django admin for staff: ``is_staff`` alone opens it, as the README says, without per-model permissions.

Staff see every dataset, run and share link, and see and clear the sign-in counters (django-axes); users and
groups stay with superusers, so that being staff never grants the right to make more staff.
"""

from axes.admin import AccessAttemptAdmin, AccessFailureLogAdmin, AccessLogAdmin
from axes.models import AccessAttempt, AccessFailureLog, AccessLog
from django.contrib import admin


class StaffAccess:
    """Model-admin permissions that every active staff member has; ``staff_may`` names them."""

    staff_may = ("view",)

    def _staff(self, request, what):
        user = request.user
        return user.is_active and user.is_staff and what in self.staff_may

    def has_module_permission(self, request):
        return self._staff(request, "view") or super().has_module_permission(request)

    def has_view_permission(self, request, obj=None):
        return self._staff(request, "view") or super().has_view_permission(request, obj)

    def has_change_permission(self, request, obj=None):
        return self._staff(request, "change") or super().has_change_permission(request, obj)

    def has_delete_permission(self, request, obj=None):
        return self._staff(request, "delete") or super().has_delete_permission(request, obj)


class StaffAccessAttemptAdmin(StaffAccess, AccessAttemptAdmin):
    staff_may = ("view", "delete")  # clearing a counter unlocks an account


class StaffAccessLogAdmin(StaffAccess, AccessLogAdmin):
    pass


class StaffAccessFailureLogAdmin(StaffAccess, AccessFailureLogAdmin):
    pass


for model, model_admin in (
    (AccessAttempt, StaffAccessAttemptAdmin),
    (AccessLog, StaffAccessLogAdmin),
    (AccessFailureLog, StaffAccessFailureLogAdmin),
):
    if admin.site.is_registered(model):
        admin.site.unregister(model)
    admin.site.register(model, model_admin)
