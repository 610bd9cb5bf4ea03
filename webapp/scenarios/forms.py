from django import forms
from django.conf import settings

from . import engine, gzipped
from .manifests import limits
from .models import Membership, Team

MANIFESTS_HELP = "Kubernetes objects as `kubectl get -o yaml` prints them: a List, or documents separated by ---."


class ManifestsMixin:
    """Checks manifests and config with the engine and puts its message on the right field."""

    def clean(self):
        cleaned = super().clean()
        upload = cleaned.get("upload")
        filename = engine.SCENARIO_FILE
        if upload:
            filename = upload.name or engine.SCENARIO_FILE
            try:  # as kubectl reads files: a UTF-8 or UTF-16 byte-order mark is honoured
                data = gzipped.read_upload(upload, settings.MANIFEST_MAX_BYTES, "MANIFEST_MAX_BYTES")
                cleaned["manifests"] = normalize(engine.decode(data, filename))
            except gzipped.GzipError as e:
                self.add_error("upload", str(e))
                return cleaned
            except engine.ScenarioInvalid:
                self.add_error("upload", f"{filename} is not UTF-8 text (nor UTF-16 with a byte-order mark).")
                return cleaned
            self.uploaded = filename
            if limits.in_browser(cleaned["manifests"])["editable"]:
                # the uploaded text goes into the editor, so that a refused file is not lost: fix it there
                self.data = self.data.copy()
                self.data["manifests"] = cleaned["manifests"]
        if not cleaned.get("manifests"):
            if "manifests" not in self.errors:
                self.add_error("manifests", "Paste the manifests or upload a file.")
            return cleaned
        try:
            self.warnings = engine.validate(cleaned["manifests"], cleaned.get("config", ""), filename)
        except engine.ScenarioInvalid as e:
            self.add_error(e.input, str(e))
        return cleaned


def normalize(text):
    """Line ends as Unix writes them, and no byte-order mark (pasted with a text copied from a file)."""
    return text.removeprefix("\ufeff").replace("\r\n", "\n")


class ScenarioCreateForm(ManifestsMixin, forms.Form):
    team = forms.ModelChoiceField(queryset=Team.objects.none())
    name = forms.CharField(max_length=200)
    manifests = forms.CharField(widget=forms.Textarea(attrs={"rows": 18, "spellcheck": "false", "data-code-editor": ""}),
                                required=False, strip=False, help_text=MANIFESTS_HELP)
    upload = forms.FileField(required=False, label="…or upload a YAML file")
    config = forms.CharField(widget=forms.Textarea(attrs={"rows": 6, "spellcheck": "false"}), required=False,
                             strip=False, label="KubeSchedulerConfiguration (optional)")
    message = forms.CharField(max_length=500, required=False)

    def __init__(self, *args, user, **kwargs):
        super().__init__(*args, **kwargs)
        editor_roles = [Membership.Role.EDITOR, Membership.Role.OWNER]
        self.fields["team"].queryset = Team.objects.filter(memberships__user=user, memberships__role__in=editor_roles)
        if len(self.fields["team"].queryset) == 1:
            self.fields["team"].initial = self.fields["team"].queryset[0]

    def clean_manifests(self):
        return normalize(self.cleaned_data["manifests"])

    def clean_config(self):
        return normalize(self.cleaned_data["config"])


class RevisionForm(ManifestsMixin, forms.Form):
    manifests = forms.CharField(widget=forms.Textarea(attrs={"rows": 24, "spellcheck": "false"}), strip=False,
                                required=False, help_text=MANIFESTS_HELP)
    upload = forms.FileField(required=False, label="Upload the new manifests (a YAML or JSON file)")
    config = forms.CharField(widget=forms.Textarea(attrs={"rows": 6, "spellcheck": "false"}), required=False,
                             strip=False, label="KubeSchedulerConfiguration (optional)")
    message = forms.CharField(max_length=500, required=False, label="What changed")
    base_revision = forms.IntegerField(widget=forms.HiddenInput, min_value=0)

    def clean_manifests(self):
        return normalize(self.cleaned_data["manifests"])

    def clean_config(self):
        return normalize(self.cleaned_data["config"])


class RunForm(forms.Form):
    revision = forms.IntegerField(min_value=1, required=False, widget=forms.HiddenInput)
    seed = forms.IntegerField(min_value=0, max_value=2**31 - 1, initial=0, required=False)


class TokenForm(forms.Form):
    name = forms.CharField(max_length=100, help_text="What the token is for, e.g. 'ci'.")
