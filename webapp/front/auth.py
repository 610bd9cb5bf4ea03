"""The login page, with a lockout after repeated failures (brute-force throttling).

Failures are counted in the default cache per (username, address) and per
username; at LOGIN_MAX_FAILURES (4× that per username alone) the form refuses
further attempts, correct or not, for LOGIN_LOCKOUT_SECONDS and answers 429.
Set CACHE_URL to a shared Redis so several web processes count together.
"""

import logging

from django import forms
from django.conf import settings
from django.contrib.auth import views as auth_views
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.forms import AuthenticationForm
from django.core.cache import cache

log = logging.getLogger(__name__)


def client_address(request):
    return request.META.get("REMOTE_ADDR", "") if request else ""


def failure_keys(username, address):
    name = (username or "").strip().lower()[:150]
    return [(f"login-fail:{name}:{address}", settings.LOGIN_MAX_FAILURES),
            (f"login-fail:{name}", settings.LOGIN_MAX_FAILURES * 4)]


def is_locked(username, address):
    try:
        return any((cache.get(key) or 0) >= limit for key, limit in failure_keys(username, address))
    except Exception:  # a cache outage must not stop people logging in
        log.warning("login throttle: cache unavailable", exc_info=True)
        return False


def record_failure(username, address):
    for key, _ in failure_keys(username, address):
        try:
            cache.add(key, 0, settings.LOGIN_LOCKOUT_SECONDS)
            cache.incr(key)
        except Exception:
            log.warning("login throttle: cache unavailable", exc_info=True)
            return


def reset_failures(username, address):
    try:
        cache.delete_many([key for key, _ in failure_keys(username, address)])
    except Exception:
        log.warning("login throttle: cache unavailable", exc_info=True)


class ThrottledFormMixin:
    """For AuthenticationForm and its admin subclass: refuse while locked, count failures."""

    locked = False

    def clean(self):
        username = self.cleaned_data.get("username")
        address = client_address(self.request)
        if username and is_locked(username, address):
            self.locked = True
            minutes = max(1, settings.LOGIN_LOCKOUT_SECONDS // 60)
            raise forms.ValidationError(
                f"Too many failed log-ins for this account. Wait {minutes} minutes and try again.",
                code="locked",
            )
        try:
            cleaned = super().clean()
        except forms.ValidationError:
            if username:
                record_failure(username, address)
            raise
        reset_failures(username, address)
        return cleaned


class ThrottledAuthenticationForm(ThrottledFormMixin, AuthenticationForm):
    pass


class ThrottledAdminAuthenticationForm(ThrottledFormMixin, AdminAuthenticationForm):
    """The admin's login page (/admin/login/) locks out the same way, so it is no way around."""


class LoginView(auth_views.LoginView):
    form_class = ThrottledAuthenticationForm

    def form_invalid(self, form):
        response = super().form_invalid(form)
        if form.locked:
            response.status_code = 429
            response.headers["Retry-After"] = str(settings.LOGIN_LOCKOUT_SECONDS)
        return response
