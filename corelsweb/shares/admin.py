from django.contrib import admin

from corelsweb.ops.admin import StaffAccess
from corelsweb.shares.models import ShareLink


@admin.register(ShareLink)
class ShareLinkAdmin(StaffAccess, admin.ModelAdmin):
    list_display = ("run", "created", "revoked")
    readonly_fields = ("token",)
