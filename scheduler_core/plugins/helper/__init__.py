"""Helpers shared by plugins (kube-scheduler v1.34 pkg/scheduler/framework/plugins/helper)."""
