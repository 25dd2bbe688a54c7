from django.contrib import admin

from corelsweb.ops.admin import StaffAccess
from corelsweb.runs.models import Run


@admin.register(Run)
class RunAdmin(StaffAccess, admin.ModelAdmin):
    list_display = ("id", "algorithm", "dataset", "owner", "status", "worker", "attempts", "created", "finished")
    list_filter = ("status", "algorithm")
    search_fields = ("dataset__name", "owner__username", "error")
    readonly_fields = (
        "created",
        "started",
        "finished",
        "message_id",
        "message_sent",
        "traceback",
        "result",
        "trace",
        "progress",
    )
