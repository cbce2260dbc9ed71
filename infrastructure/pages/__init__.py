"""Pages for people (CONTRACT.md "Pages"): the audit console, signed replay links and the play
page, rendered by the service itself (Jinja2 templates, a little plain JavaScript from static/,
SVG charts drawn on the server) under a strict Content-Security-Policy."""
