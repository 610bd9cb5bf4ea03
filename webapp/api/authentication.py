from datetime import timedelta

from django.utils import timezone
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import authentication, exceptions

from webapp.scenarios.models import ApiToken, hash_secret


class TokenAuthentication(authentication.BaseAuthentication):
    """`Authorization: Token <key>` (or `Bearer <key>`); keys are stored as SHA-256 hashes."""

    keywords = ("token", "bearer")

    def authenticate(self, request):
        parts = authentication.get_authorization_header(request).split()
        if not parts or parts[0].lower().decode(errors="replace") not in self.keywords:
            return None
        if len(parts) != 2:
            raise exceptions.AuthenticationFailed("Invalid token header: send 'Token <key>'.")
        key = parts[1].decode(errors="replace")
        token = (
            ApiToken.objects.select_related("user")
            .filter(key_hash=hash_secret(key), revoked_at__isnull=True)
            .first()
        )
        if token is None or not token.user.is_active:
            raise exceptions.AuthenticationFailed("Invalid or revoked token.")
        now = timezone.now()
        if token.last_used_at is None or now - token.last_used_at > timedelta(minutes=1):
            ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        return token.user, token

    def authenticate_header(self, request):
        return "Token"


class TokenAuthenticationScheme(OpenApiAuthenticationExtension):
    target_class = "webapp.api.authentication.TokenAuthentication"
    name = ["tokenAuth", "bearerAuth"]

    def get_security_requirement(self, auto_schema):
        return [{"tokenAuth": []}, {"bearerAuth": []}]  # either header, not both

    def get_security_definition(self, auto_schema):
        return [
            {"type": "apiKey", "in": "header", "name": "Authorization",
             "description": "Token-based authentication: `Authorization: Token <key>`"},
            {"type": "http", "scheme": "bearer",
             "description": "The same key as a bearer token: `Authorization: Bearer <key>`"},
        ]
