from django.contrib import admin
from django.urls import include, path

from webapp.front.auth import ThrottledAdminAuthenticationForm

admin.site.login_form = ThrottledAdminAuthenticationForm  # the same lockout as /login/

urlpatterns = [
    path("api/", include("webapp.api.urls")),
    path("admin/", admin.site.urls),
    path("", include("webapp.front.urls")),
]

handler404 = "webapp.front.views.page_not_found"
handler500 = "webapp.front.views.server_error"
