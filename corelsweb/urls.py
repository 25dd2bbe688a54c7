from django.contrib import admin
from django.urls import include, path

from corelsweb.accounts import views as account_views
from corelsweb.datasets import views as dataset_views
from corelsweb.runs import views as run_views
from corelsweb.shares import views as share_views

urlpatterns = [
    path("", run_views.home, name="home"),
    path("accounts/signup/", account_views.signup, name="signup"),
    path("accounts/", include("django.contrib.auth.urls")),
    path("datasets/upload/", dataset_views.upload, name="dataset-upload"),
    path("datasets/sample/", dataset_views.add_sample, name="dataset-sample"),
    path("datasets/<int:pk>/", dataset_views.detail, name="dataset-detail"),
    path("datasets/<int:pk>/delete/", dataset_views.delete, name="dataset-delete"),
    path("datasets/<int:dataset_pk>/runs/new/<slug:algorithm>/", run_views.new_run, name="run-new"),
    path("runs/<int:pk>/", run_views.detail, name="run-detail"),
    path("runs/<int:pk>/progress.json", run_views.progress, name="run-progress"),
    path("runs/<int:pk>/result.json", run_views.result_json, name="run-result-json"),
    path("runs/<int:pk>/predict/", dataset_views.predict, name="run-predict"),
    path("runs/<int:pk>/cancel/", run_views.cancel, name="run-cancel"),
    path("runs/<int:pk>/retry/", run_views.retry, name="run-retry"),
    path("runs/<int:pk>/delete/", run_views.delete, name="run-delete"),
    path("runs/<int:run_pk>/share/", share_views.create, name="share-create"),
    path("shares/<int:pk>/revoke/", share_views.revoke, name="share-revoke"),
    path("s/<str:token>/", share_views.view, name="share-view"),
    path("s/<str:token>/progress.json", share_views.progress, name="share-progress"),
    path("admin/", admin.site.urls),
]
