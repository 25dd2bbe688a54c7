from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import path

from corelsweb.accounts import views as account_views
from corelsweb.datasets import views as dataset_views
from corelsweb.ops import views as ops_views
from corelsweb.runs import views as run_views
from corelsweb.shares import views as share_views

urlpatterns = [
    path("", run_views.home, name="home"),
    path("accounts/signup/", account_views.signup, name="signup"),
    path("accounts/login/", account_views.ThrottledLoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("accounts/password/", auth_views.PasswordChangeView.as_view(), name="password_change"),
    path("accounts/password/done/", auth_views.PasswordChangeDoneView.as_view(), name="password_change_done"),
    path("datasets/upload/", dataset_views.upload, name="dataset-upload"),
    path("datasets/sample/", dataset_views.add_sample, name="dataset-sample"),
    path("datasets/<int:pk>/", dataset_views.detail, name="dataset-detail"),
    path("datasets/<int:pk>/delete/", dataset_views.delete, name="dataset-delete"),
    path("datasets/<int:dataset_pk>/runs/new/<slug:algorithm>/", run_views.new_run, name="run-new"),
    path(
        "datasets/<int:dataset_pk>/runs/new/<slug:algorithm>/estimate.json",
        run_views.form_estimate,
        name="run-form-estimate",
    ),
    path("datasets/<int:dataset_pk>/runs/", run_views.dataset_runs, name="dataset-runs"),
    path("datasets/<int:dataset_pk>/compare/", run_views.compare, name="dataset-compare"),
    path("datasets/<int:dataset_pk>/paths/new/<slug:algorithm>/", run_views.new_path, name="path-new"),
    path("paths/<int:pk>/", run_views.path_detail, name="path-detail"),
    path("paths/<int:pk>/progress.json", run_views.path_progress, name="path-progress"),
    path("paths/<int:pk>/cells/<int:run_pk>/retry/", run_views.path_retry_cell, name="path-retry-cell"),
    path("paths/<int:pk>/refit/", run_views.path_refit, name="path-refit"),
    path("runs/<int:pk>/", run_views.detail, name="run-detail"),
    path("runs/<int:pk>/progress.json", run_views.progress, name="run-progress"),
    path("runs/<int:pk>/result.json", run_views.result_json, name="run-result-json"),
    path("runs/<int:pk>/rashomon/count.json", run_views.rashomon_count, name="run-rashomon-count"),
    path("runs/<int:pk>/rashomon/optimal/", run_views.rashomon_optimal_run, name="run-rashomon-optimal"),
    path("runs/<int:pk>/rashomon/favourite/", run_views.rashomon_favourite, name="run-rashomon-favourite"),
    path("runs/<int:pk>/export/<slug:fmt>/", run_views.export_model, name="run-export"),
    path("runs/<int:pk>/predict/", dataset_views.predict, name="run-predict"),
    path("runs/<int:pk>/cancel/", run_views.cancel, name="run-cancel"),
    path("runs/<int:pk>/retry/", run_views.retry, name="run-retry"),
    path("runs/<int:pk>/delete/", run_views.delete, name="run-delete"),
    path("runs/<int:run_pk>/share/", share_views.create, name="share-create"),
    path("shares/<int:pk>/revoke/", share_views.revoke, name="share-revoke"),
    path("s/<str:token>/", share_views.view, name="share-view"),
    path("ops/queue/", ops_views.queue, name="ops-queue"),
    path("ops/queue/fragment.json", ops_views.queue_fragment, name="ops-queue-fragment"),
    path("ops/runs/<int:pk>/", ops_views.run_detail, name="ops-run"),
    path("ops/runs/<int:pk>/cancel/", ops_views.cancel, name="ops-cancel"),
    path("ops/runs/<int:pk>/requeue/", ops_views.requeue, name="ops-requeue"),
    path("admin/", admin.site.urls),
]

handler500 = "corelsweb.errors.server_error"
