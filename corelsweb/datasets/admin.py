from django.contrib import admin

from corelsweb.ops.admin import StaffAccess
from corelsweb.datasets.models import Dataset


@admin.register(Dataset)
class DatasetAdmin(StaffAccess, admin.ModelAdmin):
    list_display = ("name", "owner", "n_rows", "n_columns", "size_bytes", "created")
    list_filter = ("created",)
    search_fields = ("name", "original_filename", "owner__username")
    readonly_fields = ("columns", "preview", "created")
