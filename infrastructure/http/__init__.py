"""The HTTP API of docs/CONTRACT.md: app factory (app.py), routes, models, auth, error mapping."""
