"""The service's configuration, read once from the environment (PUMPKIN_*)."""

from __future__ import annotations

import secrets
from typing import Literal

from pydantic import Field, PrivateAttr, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from infrastructure.store.database_url import UnsupportedDatabaseUrl, check_database_url


def _random_key() -> SecretStr:
    return SecretStr(secrets.token_urlsafe(32))


class Settings(BaseSettings):
    """Every knob of the service. Keys left unset are random for this run (logged once)."""

    model_config = SettingsConfigDict(env_prefix="PUMPKIN_", extra="ignore")
    _generated: tuple[bool, bool] = PrivateAttr(default=(False, False))

    database_url: str = "sqlite:///./pumpkin.db"
    # Empty or unset: a random key for this run, written once to the log at start.
    operator_key: SecretStr = SecretStr("")
    auditor_key: SecretStr = SecretStr("")
    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=1, le=65535)
    workers: int = Field(default=1, ge=1, le=64)  # `serve` processes

    log_format: Literal["auto", "json", "console"] = "auto"
    log_level: str = "INFO"
    # Requests over this size are refused with 413 before they are parsed.
    max_body_bytes: int = Field(default=64 * 1024, ge=1024)
    # Requests per second allowed to one credential (a token bucket of this size); 0 turns it off.
    rate_limit_per_second: int = Field(default=2000, ge=0)
    # How long an open session's token is remembered (a close elsewhere is seen within this).
    token_cache_seconds: float = Field(default=2.0, ge=0.0, le=60.0)
    # `serve` also runs the projections in its own process (the one-command embedded default).
    serve_projections: bool = True
    # The player-protection profile (domain.ledger.protection.PROFILES; CONTRACT.md "Player
    # protection").
    jurisdiction: Literal["none", "uk", "ontario", "de"] = "none"
    # Signs replay links and console sign-ins (infrastructure/pages/keys.py). Unset: a key made on
    # first use and kept in pages_key_file, so links outlive a restart and workers share it.
    pages_key: SecretStr = SecretStr("")
    pages_key_file: str = "pumpkin-pages.key"
    # Keeps unrevealed server seeds secret at rest (infrastructure.sessions.seed_vault): 64 hex.
    # Unset:
    # the key in seed_key_file, generated there at first start.
    seed_key: SecretStr = SecretStr("")
    # Default: next to the SQLite database (`<db>.seed-key`), else ./pumpkin-seed.key.
    seed_key_file: str = ""
    # A session with no spin for this long is closed by the service (its seed revealed).
    session_idle_seconds: float = Field(default=1800.0, gt=0)
    # The operator's Ed25519 key signing checkpoints (infrastructure.audit.checkpoints). Default:
    # next to the SQLite database (`<db>.checkpoint-key`), else ./pumpkin-checkpoint.key.
    checkpoint_key_file: str = ""
    # `serve` records a signed checkpoint this often; 0 = only `pumpkin checkpoint`.
    checkpoint_seconds: float = Field(default=60.0, ge=0)
    # `serve` takes new events into the transparency log this often; 0 = serve never builds the
    # log (`pumpkin checkpoint` does, e.g. from cron; proofs then wait for it).
    log_follow_seconds: float = Field(default=0.5, ge=0)
    # The operator's seamless wallet (infrastructure/wallet/): unset, the built-in wallet.
    wallet_url: str = ""
    wallet_secret: SecretStr = SecretStr("")
    currency: str = Field(default="EUR", pattern=r"^[A-Z]{3}$")
    # The base of every URL the service hands out (replay links); never taken from a request's
    # Host or X-Forwarded-* headers. Empty: http://<host>:<port>, the address `serve` listens on.
    public_url: str = ""
    # Addresses (comma-separated IPs or networks) whose X-Forwarded-For/-Proto are believed; from
    # anyone else, and from everyone when empty, those headers are ignored.
    trusted_proxies: str = ""
    wallet_timeout_seconds: float = Field(default=2.0, gt=0.0, le=30.0)
    # The wallet's API: CONTRACT.md's own ("pumpkin", HMAC-signed with wallet_secret) or Hub88's
    # supplier wallet API ("hub88", RSA-signed with the supplier's private key; Hub88's public
    # key, when set, checks that every answer is signed by Hub88; game_code names the game).
    wallet_protocol: Literal["pumpkin", "hub88"] = "pumpkin"
    wallet_private_key_file: str = ""
    wallet_public_key_file: str = ""
    wallet_game_code: str = Field(default="pumpkin_rgs", min_length=1, max_length=64)

    # -- hardening (issue 17) --------------------------------------------------------------------
    # A request line plus headers larger than this is refused (431) before it is all read.
    max_header_bytes: int = Field(default=16 * 1024, ge=1024, le=1024 * 1024)
    # A client must finish sending a request's headers within this many seconds (slowloris).
    header_timeout_seconds: float = Field(default=10.0, gt=0.0, le=300.0)
    # An idle keep-alive connection is closed after this many seconds.
    keep_alive_seconds: float = Field(default=5.0, gt=0.0, le=300.0)
    # Connections and requests one `serve` process takes at once (503 beyond).
    max_connections_per_worker: int = Field(default=1000, ge=1)
    # Of those, what one client address may hold (a new one beyond: 429 and closed), and how many
    # of its connections may still be sending headers; connections still sending headers never
    # count toward the cap's 503. The listed proxies (trusted_proxies) have no per-address share.
    max_connections_per_address: int = Field(default=250, ge=1)
    max_half_open_per_address: int = Field(default=100, ge=1)
    # Failed authentications allowed per client address per minute, across every worker; 0 = off.
    auth_failures_per_minute: int = Field(default=60, ge=0)
    # Requests per second per client address without any credentials, across workers; 0 = off.
    anonymous_per_second: int = Field(default=100, ge=0)
    # An unknown bearer token is remembered as unknown for this long (no store read each time).
    unknown_token_cache_seconds: float = Field(default=10.0, ge=0.0, le=300.0)
    # Audit trail exports (`GET /audit/events`) one process streams at once (429 beyond), and
    # how long one write to a reader may wait before the export is abandoned.
    audit_exports_max: int = Field(default=4, ge=1, le=64)
    audit_send_timeout_seconds: float = Field(default=30.0, gt=0.0, le=600.0)
    # Serve the interactive API pages (/docs, /redoc). They load their scripts from a public CDN,
    # so production leaves them off; /openapi.json is always served, from this process only.
    docs: bool = False

    @field_validator("database_url")
    @classmethod
    def _known_store(cls, url: str) -> str:
        try:
            return check_database_url(url)
        except UnsupportedDatabaseUrl as error:
            raise ValueError(f"PUMPKIN_DATABASE_URL is sqlite:///PATH or postgresql://...: "
                             f"{error}") from None

    @field_validator("public_url")
    @classmethod
    def _public_url(cls, url: str) -> str:
        if url and (not url.startswith(("http://", "https://")) or "?" in url or "#" in url):
            raise ValueError("PUMPKIN_PUBLIC_URL is http(s)://HOST[:PORT][/PATH], no query")
        return url.rstrip("/")

    def public_base_url(self) -> str:
        """Where the service is reached from outside: PUMPKIN_PUBLIC_URL, else its own address."""
        return self.public_url or f"http://{self.host}:{self.port}"

    def trusted_proxy_list(self) -> list[str]:
        return [entry.strip() for entry in self.trusted_proxies.split(",") if entry.strip()]

    @field_validator("wallet_url")
    @classmethod
    def _wallet_url(cls, url: str) -> str:
        if url and not url.startswith(("http://", "https://")):
            raise ValueError("PUMPKIN_WALLET_URL is http://... or https://...")
        return url

    def model_post_init(self, __context: object) -> None:
        if self.wallet_url and self.wallet_protocol == "pumpkin" and (
            not self.wallet_secret.get_secret_value()
        ):
            raise ValueError("PUMPKIN_WALLET_SECRET is required with PUMPKIN_WALLET_URL")
        if self.wallet_url and self.wallet_protocol == "hub88" and not (
            self.wallet_private_key_file
        ):
            raise ValueError(
                "PUMPKIN_WALLET_PRIVATE_KEY_FILE is required with PUMPKIN_WALLET_PROTOCOL=hub88"
            )
        self._generated = (
            not self.operator_key.get_secret_value(),
            not self.auditor_key.get_secret_value(),
        )
        if self._generated[0]:
            self.operator_key = _random_key()
        if self._generated[1]:
            self.auditor_key = _random_key()

    @property
    def keys_were_generated(self) -> tuple[bool, bool]:
        """Whether the operator / auditor keys were made up at start (not configured)."""
        return self._generated

    @property
    def database_url_for_log(self) -> str:
        """The store URL without its password."""
        return _without_password(self.database_url)


def _without_password(url: str) -> str:
    scheme, sep, rest = url.partition("://")
    credentials, at, host = rest.rpartition("@")
    if not sep or not at or ":" not in credentials:
        return url
    user = credentials.split(":", 1)[0]
    return f"{scheme}://{user}:***@{host}"
