from django.contrib.auth import views as auth_views
from django.urls import path
from django.views.generic import RedirectView

from . import pod_updates, views, views_compare, views_edit, views_sweep

urlpatterns = [
    path("", RedirectView.as_view(pattern_name="scenario-list"), name="home"),
    path("login/", auth_views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("scenarios/", views.scenario_list, name="scenario-list"),
    path("scenarios/new/", views.scenario_create, name="scenario-create"),
    path("scenarios/<int:pk>/", views.scenario_detail, name="scenario-detail"),
    path("scenarios/<int:pk>/save/", views.scenario_save, name="scenario-save"),
    path("scenarios/<int:pk>/delete/", views.scenario_delete, name="scenario-delete"),
    path("scenarios/<int:pk>/revisions/<int:number>/", views.revision_detail, name="revision-detail"),
    path("scenarios/<int:pk>/revisions/<int:number>/restore/", views.revision_restore, name="revision-restore"),
    path("scenarios/<int:pk>/runs/", views.run_create, name="run-create"),
    path("scenarios/<int:pk>/share/", views.share_link_create, name="share-link-create"),
    path("scenarios/<int:pk>/share/<int:link_id>/revoke/", views.share_link_revoke, name="share-link-revoke"),
    path("scenarios/<int:pk>/pods/", pod_updates.gated_pods, name="pod-updates"),
    path("scenarios/<int:pk>/pods/<str:namespace>/<str:name>/update/", pod_updates.pod_update, name="pod-update"),
    path("scenarios/<int:pk>/pod-updates/<int:attempt_id>/", pod_updates.pod_update_attempt, name="pod-update-attempt"),
    path("runs/<int:run_id>/", views.run_detail, name="run-detail"),
    path("scenarios/<int:pk>/draft/", views_edit.draft_detail, name="draft-detail"),
    path("scenarios/<int:pk>/draft/validate/", views_edit.draft_validate, name="draft-validate"),
    path("scenarios/<int:pk>/draft/edit/", views_edit.draft_edit, name="draft-edit"),
    path("scenarios/<int:pk>/draft/run/", views_edit.draft_run, name="draft-run"),
    path("scenarios/<int:pk>/draft/runs/", views_edit.draft_runs, name="draft-runs"),
    path("scenarios/<int:pk>/draft/save/", views_edit.draft_save, name="draft-save"),
    path("scenarios/<int:pk>/draft/rebase/", views_edit.draft_rebase, name="draft-rebase"),
    path("scenarios/<int:pk>/draft/discard/", views_edit.draft_discard, name="draft-discard"),
    path("scenarios/<int:pk>/compare/", views_compare.compare_runs, name="compare"),
    path("scenarios/<int:pk>/sweeps/", views_sweep.sweep_list, name="sweep-list"),
    path("scenarios/<int:pk>/sweeps/new/", views_sweep.sweep_create, name="sweep-create"),
    path("sweeps/<int:sweep_id>/", views_sweep.sweep_detail, name="sweep-detail"),
    path("tokens/", views.token_list, name="token-list"),
    path("tokens/<int:token_id>/revoke/", views.token_revoke, name="token-revoke"),
    path("s/<str:token>/", views.shared_scenario, name="shared-scenario"),
    path("s/<str:token>/runs/<int:run_id>/", views.shared_run, name="shared-run"),
]
