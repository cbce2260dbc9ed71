# Pumpkin RGS: one image for the API (`pumpkin serve`) and the projection runner.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1

WORKDIR /app
COPY pyproject.toml README.md ./
COPY domain ./domain
COPY infrastructure ./infrastructure
COPY projections ./projections
RUN pip install . && useradd --create-home --uid 10001 pumpkin

USER pumpkin
ENV PUMPKIN_HOST=0.0.0.0 \
    PUMPKIN_PORT=8000 \
    PUMPKIN_LOG_FORMAT=json
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD python -c "import urllib.request,sys; sys.exit(urllib.request.urlopen('http://127.0.0.1:8000/health', timeout=2).status != 200)"
ENTRYPOINT ["pumpkin"]
CMD ["serve"]
