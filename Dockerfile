# corelsweb: one image for the web server (gunicorn) and the solver workers (celery).
# Build: docker build -t corelsweb .   Run everything: docker compose up

FROM python:3.11-slim-bookworm AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
RUN apt-get update && apt-get install -y --no-install-recommends gcc g++ && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY pyproject.toml README.md ./
COPY solver ./solver
COPY corelsweb ./corelsweb
RUN python -m venv /venv && /venv/bin/pip install --upgrade pip && /venv/bin/pip install .

FROM python:3.11-slim-bookworm AS app
RUN useradd --create-home --uid 10001 corelsweb
ENV PATH=/venv/bin:$PATH \
    DJANGO_SETTINGS_MODULE=corelsweb.settings \
    CORELSWEB_VAR_DIR=/data \
    CORELSWEB_ROOT=/app \
    STATIC_ROOT=/app/collected-static \
    NUMBA_CACHE_DIR=/app/numba-cache \
    PYTHONUNBUFFERED=1 \
    SECURE_COOKIES=1 \
    SECURE_SSL_REDIRECT=1 \
    SECURE_HSTS_SECONDS=31536000 \
    SECURE_HSTS_INCLUDE_SUBDOMAINS=1 \
    SECURE_HSTS_PRELOAD=1 \
    SECURE_PROXY_SSL_HEADER=X-Forwarded-Proto
COPY --from=build /venv /venv
WORKDIR /app
COPY manage.py ./
COPY templates ./templates
COPY static ./static
RUN mkdir -p /data /app/collected-static /app/numba-cache && chown -R corelsweb /data /app
USER corelsweb
# Static files (plotly.js from the plotly package) collected at build time.
RUN SECRET_KEY=build-only python manage.py collectstatic --noinput
# Warm numba's cache so that the first run after start does not pay for compilation.
RUN SECRET_KEY=build-only python manage.py warm
VOLUME ["/data"]
EXPOSE 8000
CMD ["gunicorn", "corelsweb.wsgi", "--bind", "0.0.0.0:8000", "--workers", "3", "--threads", "4"]
