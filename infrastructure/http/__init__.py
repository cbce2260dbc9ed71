"""The HTTP API of CONTRACT.md: app factory (app.py), routes, models, auth, one error mapping."""
