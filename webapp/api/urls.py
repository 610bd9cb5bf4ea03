from django.urls import path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView
from rest_framework.routers import DefaultRouter

from . import views

app_name = "api"

router = DefaultRouter()
router.register("scenarios", views.ScenarioViewSet, basename="scenario")
router.register("runs", views.RunViewSet, basename="run")
router.register("teams", views.TeamViewSet, basename="team")
router.register("tokens", views.ApiTokenViewSet, basename="token")

urlpatterns = [
    path("auth/token/", views.ObtainTokenView.as_view(), name="auth-token"),
    path("shared/<str:token>/", views.SharedScenarioView.as_view(), name="shared-scenario"),
    path("shared/<str:token>/runs/<int:run_id>/", views.SharedRunView.as_view(), name="shared-run"),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="api:schema"), name="swagger-ui"),
    *router.urls,
]
