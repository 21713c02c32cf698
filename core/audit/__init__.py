"""Spot-check audits: audits and their items, the store, sampling, agreement, reports and exports, the
human baseline, and merging another annotator's workspace (`merge`)."""
