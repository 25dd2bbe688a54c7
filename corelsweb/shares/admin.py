from django.contrib import admin

from corelsweb.shares.models import ShareLink


@admin.register(ShareLink)
class ShareLinkAdmin(admin.ModelAdmin):
    list_display = ("run", "created", "revoked")
    readonly_fields = ("token",)
