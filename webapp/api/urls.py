from django.urls import path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView
from rest_framework.routers import DefaultRouter

from . import analyses, compare, drafts, pod_updates, results, sweeps, teams, views

app_name = "api"

router = DefaultRouter()
router.register("scenarios", views.ScenarioViewSet, basename="scenario")
router.register("runs", views.RunViewSet, basename="run")
router.register("teams", teams.TeamViewSet, basename="team")
router.register("tokens", views.ApiTokenViewSet, basename="token")

urlpatterns = [
    path("auth/token/", views.ObtainTokenView.as_view(), name="auth-token"),
    path("shared/<str:token>/", views.SharedScenarioView.as_view(), name="shared-scenario"),
    path("shared/<str:token>/runs/<int:run_id>/", views.SharedRunView.as_view(), name="shared-run"),
    path("scenarios/<int:pk>/draft/", drafts.DraftView.as_view(), name="draft"),
    path("scenarios/<int:pk>/draft/edits/", drafts.DraftEditView.as_view(), name="draft-edits"),
    path("scenarios/<int:pk>/draft/undo/", drafts.DraftUndoView.as_view(), name="draft-undo"),
    path("scenarios/<int:pk>/draft/redo/", drafts.DraftRedoView.as_view(), name="draft-redo"),
    path("scenarios/<int:pk>/draft/run/", drafts.DraftRunView.as_view(), name="draft-run"),
    path("scenarios/<int:pk>/draft/save/", drafts.DraftSaveView.as_view(), name="draft-save"),
    path("scenarios/<int:pk>/compare/", compare.ScenarioCompareView.as_view(), name="scenario-compare"),
    path("runs/<int:a>/compare/<int:b>/", compare.RunCompareView.as_view(), name="run-compare"),
    path("scenarios/<int:pk>/sweeps/", sweeps.ScenarioSweepsView.as_view(), name="scenario-sweeps"),
    path("sweeps/<int:sweep_id>/", sweeps.SweepDetailView.as_view(), name="sweep-detail"),
    path("scenarios/<int:pk>/analyses/", analyses.ScenarioAnalysesView.as_view(), name="scenario-analyses"),
    path("analyses/<int:analysis_id>/", analyses.AnalysisDetailView.as_view(), name="analysis-detail"),
    path("analyses/<int:analysis_id>/cancel/", analyses.AnalysisCancelView.as_view(), name="analysis-cancel"),
    path("scenarios/<int:pk>/pods/<str:namespace>/<str:name>/updates/", pod_updates.PodUpdatesView.as_view(),
         name="pod-updates"),
    path("scenarios/<int:pk>/pod-updates/", pod_updates.ScenarioPodUpdatesView.as_view(), name="scenario-pod-updates"),
    path("runs/<int:run_id>/topology/", results.RunTopologyView.as_view(), name="run-topology"),
    path("runs/<int:run_id>/timeline/", results.RunTimelineView.as_view(), name="run-timeline"),
    path("runs/<int:run_id>/nodes/<str:name>/", results.RunNodeView.as_view(), name="run-node"),
    path("runs/<int:run_id>/pods/<str:namespace>/<str:name>/", results.RunPodView.as_view(), name="run-pod"),
    path("scenarios/<int:pk>/activity/", teams.ScenarioActivityView.as_view(), name="scenario-activity"),
    path("scenarios/<int:pk>/fork/", teams.ScenarioForkView.as_view(), name="scenario-fork"),
    path("runs/<int:run_id>/export.json", teams.RunExportJSONView.as_view(), name="run-export-json"),
    path("runs/<int:run_id>/export.csv", teams.RunExportCSVView.as_view(), name="run-export-csv"),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", SpectacularSwaggerSplitView.as_view(url_name="api:schema"), name="swagger-ui"),
    *router.urls,
]
