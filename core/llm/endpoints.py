"""Where model requests go: endpoint settings, the API key, and the recently used endpoints.

The API key is resolved at run time and only handed to the HTTP client: it is never logged,
never put in an error message, never stored in a workspace, a cache or `endpoints.json`.
Saved keys live in `credentials.json` in the config directory, created with mode 0600 and
refused when other users could read it (as ssh refuses a world-readable private key).
"""
from __future__ import annotations

import json
import logging
import os
import stat
from dataclasses import asdict, dataclass, fields
from pathlib import Path

from core.errors import EndpointError, UsageError
from core.safe_files import MAX_CONFIG_BYTES, read_json, why_unreadable
from core.scoring.rules import DEFAULT_RULES, RULE_SETS
from core.user_folders import config_dir, write_private_json

log = logging.getLogger(__name__)

KEY_ENV_VARS = ("TRACEEVAL_API_KEY", "OPENAI_API_KEY")
RECENT_LIMIT = 10
# Which output-token limit a request names: both (the paper's request), or one alone (OpenAI's o-series and
# GPT-5 refuse `max_tokens`, some servers refuse the pair). "" = both, switching to one on a 400 naming a field.
BOTH_LIMITS, MAX_TOKENS, MAX_COMPLETION_TOKENS = "both", "max_tokens", "max_completion_tokens"
TOKEN_LIMIT_FIELDS = (BOTH_LIMITS, MAX_TOKENS, MAX_COMPLETION_TOKENS)


@dataclass(frozen=True)
class RunSettings:
    """One model on one OpenAI-compatible endpoint, and how to ask it."""

    base_url: str
    model: str  # the id sent to the endpoint
    name: str = ""  # the name stored in the workspace (default: `model`)
    temperature: float = 0.0
    max_tokens: int = 4096
    timeout_s: float = 300.0  # per request
    concurrency: int = 4
    retries: int = 5  # extra attempts after the first
    use_cache: bool = True
    api_key_env: str | None = None  # the variable holding the key (its name, not the key)
    rules: str = DEFAULT_RULES  # how the prompt is assembled (core.scoring.rules)
    seed: int | None = None  # sent as the request's `seed` when given (repeated runs, core.llm.repeats)
    token_limit_field: str = ""  # one of TOKEN_LIMIT_FIELDS to force it; "" adapts (core.llm.chat)

    def __post_init__(self):
        object.__setattr__(self, "base_url", self.base_url.strip().rstrip("/"))
        if not self.base_url.startswith(("http://", "https://")):
            raise UsageError(f"endpoint URL {self.base_url!r} must start with http:// or https://")
        if not self.model.strip():
            raise UsageError("no model id given for the endpoint")
        checks = ((self.concurrency >= 1, f"concurrency must be at least 1 (got {self.concurrency})"),
                  (self.max_tokens >= 1, f"max tokens must be at least 1 (got {self.max_tokens})"),
                  (self.timeout_s > 0, f"timeout must be more than 0 s (got {self.timeout_s})"),
                  (self.retries >= 0, f"retries must be 0 or more (got {self.retries})"),
                  (self.temperature >= 0, f"temperature must be 0 or more (got {self.temperature})"),
                  (self.rules in RULE_SETS, f"unknown rule set {self.rules!r} (choose from {', '.join(RULE_SETS)})"),
                  (self.token_limit_field in ("", *TOKEN_LIMIT_FIELDS),
                   f"unknown token limit field {self.token_limit_field!r} "
                   f"(choose from {', '.join(TOKEN_LIMIT_FIELDS)})"))
        for ok, message in checks:
            if not ok:
                raise UsageError(message)

    @property
    def stored_name(self) -> str:
        return self.name or self.model

    def public_params(self) -> dict:
        """Every setting (no secret is a setting): for the run record and the GUI's recent list."""
        return asdict(self)

    @classmethod
    def from_params(cls, params: dict) -> RunSettings:
        """Settings from `public_params()` output; unknown keys (from a newer version) are ignored."""
        known = {f.name for f in fields(cls)}
        return cls(**{key: value for key, value in params.items() if key in known})


# -- the API key ------------------------------------------------------------------------------
def resolve_api_key(settings: RunSettings) -> str | None:
    """The key for `settings`: the variable it names, else TRACEEVAL_API_KEY, else OPENAI_API_KEY,
    else the credentials file entry for its URL, else None (local servers need none)."""
    if settings.api_key_env:
        key = os.environ.get(settings.api_key_env)
        if not key:
            raise UsageError(f"environment variable {settings.api_key_env} (named for the API key) is not set")
        return key
    for variable in KEY_ENV_VARS:
        if os.environ.get(variable):
            return os.environ[variable]
    saved = {_url(url): entry for url, entry in _read_credentials(checked=True).items()}
    entry = saved.get(settings.base_url)
    if isinstance(entry, dict) and isinstance(entry.get("api_key"), str) and entry["api_key"]:
        return entry["api_key"]
    return None


def credentials_path() -> Path:
    return config_dir() / "credentials.json"


def save_api_key(base_url: str, key: str) -> None:
    """Remember `key` for `base_url` (file mode 0600, directory 0700, replaced atomically)."""
    key = key.strip()
    if not key or any(char.isspace() for char in key):
        raise UsageError("an API key cannot be empty or contain spaces or line breaks")
    entries = _read_credentials(checked=False)
    entries[_url(base_url)] = {"api_key": key}
    write_private_json(credentials_path(), entries)


def forget_api_key(base_url: str) -> bool:
    """Drop the saved key for `base_url`; True when there was one."""
    entries = _read_credentials(checked=False)
    if entries.pop(_url(base_url), None) is None:
        return False
    write_private_json(credentials_path(), entries)
    return True


def _read_credentials(checked: bool) -> dict:
    """The credentials file as a dict ({} when absent). `checked` refuses a file others can read;
    saving skips the check, since writing replaces the file with a private one."""
    path = credentials_path()
    try:
        mode = path.stat().st_mode
        if checked and mode & 0o077:
            raise EndpointError(f"{path}: readable by other users (mode {stat.S_IMODE(mode):04o}); "
                                f"run chmod 600 {path}")
        data = read_json(path, MAX_CONFIG_BYTES)
    except FileNotFoundError:
        return {}
    except OSError as error:  # the problem quotes no file content, so no key leaks
        raise EndpointError(f"{path}: cannot read credentials: {why_unreadable(error)}") from None
    except json.JSONDecodeError as error:  # the message quotes no file content, so no key leaks
        raise EndpointError(f"{path}: not valid JSON (line {error.lineno}); fix or delete it") from None
    if not isinstance(data, dict):
        raise EndpointError(f'{path}: expected {{"<base url>": {{"api_key": "..."}}}}')
    return data


# -- recently used endpoints (no keys) ------------------------------------------------------------
def recent_endpoints_path() -> Path:
    return config_dir() / "endpoints.json"


def load_recent_endpoints() -> list[dict]:
    """The last used endpoint settings (`public_params()` dicts), newest first; [] when unreadable."""
    path = recent_endpoints_path()
    try:
        data = read_json(path, MAX_CONFIG_BYTES)
    except FileNotFoundError:
        return []
    except (OSError, ValueError) as error:
        log.warning("%s: ignoring the recent endpoints list (%s)", path, error)
        return []
    return [entry for entry in data if isinstance(entry, dict)] if isinstance(data, list) else []


def remember_endpoint(settings: RunSettings) -> None:
    """Put `settings` first in the recent list (the same URL, model and name only once)."""
    params = settings.public_params()
    identity = (params["base_url"], params["model"], params["name"])
    older = [entry for entry in load_recent_endpoints()
             if (entry.get("base_url"), entry.get("model"), entry.get("name")) != identity]
    write_private_json(recent_endpoints_path(), [params, *older][:RECENT_LIMIT])


# -- the token-limit field each endpoint and model accepts ----------------------------------------
def token_limit_fields_path() -> Path:
    return config_dir() / "token_limit_fields.json"


def token_limit_field_for(base_url: str, model: str, forced: str = "") -> str:
    """The output-token limit's field to send: `forced`, else the one remembered after a refusal, else both (the
    paper's request)."""
    return forced or remembered_token_limit_field(base_url, model) or BOTH_LIMITS


def remembered_token_limit_field(base_url: str, model: str) -> str | None:
    """The field alone that `model` at `base_url` accepted after refusing the pair, or None."""
    entry = _token_limit_fields(warn=True).get(_url(base_url))
    field = entry.get(model) if isinstance(entry, dict) else None
    return field if field in (MAX_TOKENS, MAX_COMPLETION_TOKENS) else None


def remember_token_limit_field(base_url: str, model: str, field: str) -> None:
    """Keep `field` as the one `model` at `base_url` accepts ({"<base url>": {"<model>": "<field>"}})."""
    path = token_limit_fields_path()
    data = _token_limit_fields(warn=False)
    entry = data.get(_url(base_url))
    data[_url(base_url)] = {**(entry if isinstance(entry, dict) else {}), model: field}
    try:
        write_private_json(path, data)
    except OSError as error:  # a convenience: the run goes on and asks again next time
        log.warning("%s: cannot remember the token limit field (%s)", path, error)


def _token_limit_fields(warn: bool) -> dict:
    """The remembered fields file as a dict: empty when it is missing or unreadable (said once, when `warn`)."""
    path = token_limit_fields_path()
    try:
        data = read_json(path, MAX_CONFIG_BYTES)
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as error:
        if warn:
            log.warning("%s: ignoring the remembered token limit fields (%s)", path, error)
        return {}
    return data if isinstance(data, dict) else {}


def _url(base_url: str) -> str:
    return base_url.strip().rstrip("/")
