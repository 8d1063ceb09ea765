"""The console's custom admin views: flows that need more than a model form (the stage-plan
form, result entry, the live tables list). Registered by ``tournaments.admin``; each view checks
``tournaments.permissions`` and changes data only through ``tournaments.services``."""
