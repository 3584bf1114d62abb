"""Shared core of the Work Management Service: no area code lives here."""
