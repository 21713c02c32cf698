"""Spot-check audits in the window: the Audit menu, the audit and baseline windows, results, agreement and
corrected scores, and the audit jobs."""
