"""Security headers and rate limits."""

import logging

from django.conf import settings
from django.core.cache import cache
from redis.exceptions import RedisError

log = logging.getLogger(__name__)

CSP = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        # plotly.js sets style attributes and injects its own <style> element.
        "style-src 'self' 'unsafe-inline'",
        # plotly's PNG/SVG download builds data: and blob: URLs.
        "img-src 'self' data: blob:",
        "font-src 'self' data:",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)


class SecurityHeadersMiddleware:
    """Add the Content-Security-Policy (only our own static files run) and related headers."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        response.setdefault("Content-Security-Policy", CSP)
        response.setdefault("Permissions-Policy", "camera=(), microphone=(), geolocation=(), payment=()")
        response.setdefault("Cross-Origin-Opener-Policy", "same-origin")
        return response


def client_ip(request):
    # Behind a proxy set CORELSWEB_TRUST_X_FORWARDED_FOR; otherwise the header is the client's to forge.
    if settings.CORELSWEB_TRUST_X_FORWARDED_FOR:
        forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
        if forwarded:
            return forwarded.split(",")[0].strip()
    return request.META.get("REMOTE_ADDR", "")


def hit(key, limit, window):
    """Count one event for ``key`` in a fixed window; return True when it is over ``limit``, None if unknown.

    None: the cache (Redis) cannot be reached, so the caller decides from its own records.
    """
    full = f"rate:{key}"
    try:
        cache.add(full, 0, timeout=window)
        try:
            count = cache.incr(full)
        except ValueError:  # expired between add and incr
            cache.set(full, 1, timeout=window)
            count = 1
    except (RedisError, OSError):
        log.warning("rate limit %s: the cache is unreachable; counting from the database instead", key, exc_info=True)
        return None
    return count > limit
