from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("api/", include("webapp.api.urls")),
    path("admin/", admin.site.urls),
    path("", include("webapp.front.urls")),
]

handler404 = "webapp.front.views.page_not_found"
handler500 = "webapp.front.views.server_error"
