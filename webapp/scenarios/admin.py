from django.contrib import admin

from .models import ApiToken, Membership, Revision, Run, Scenario, ShareLink, Team


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 1


@admin.register(Team)
class TeamAdmin(admin.ModelAdmin):
    inlines = [MembershipInline]


@admin.register(Scenario)
class ScenarioAdmin(admin.ModelAdmin):
    list_display = ["name", "team", "current_revision", "updated_at", "deleted_at"]
    list_filter = ["team"]
    search_fields = ["name"]


@admin.register(Revision)
class RevisionAdmin(admin.ModelAdmin):
    list_display = ["scenario", "number", "author", "created_at", "message"]

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(Run)
class RunAdmin(admin.ModelAdmin):
    list_display = ["id", "scenario", "revision", "status", "created_at", "finished_at"]
    list_filter = ["status"]


admin.site.register(ShareLink)
admin.site.register(ApiToken)
