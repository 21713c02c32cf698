"""Endpoint settings, the API key and its credentials file, the price table and the answer cache."""
import json
import logging
import os
import stat

import pytest

from core.errors import EndpointError, UsageError
from core.llm.answer_cache import AnswerCache, CachedAnswer, cache_key, default_cache_path
from core.llm.endpoints import (
    RunSettings,
    credentials_path,
    forget_api_key,
    load_recent_endpoints,
    remember_endpoint,
    resolve_api_key,
    save_api_key,
)
from core.llm.prices import PriceTable

URL = "http://127.0.0.1:8000/v1"


@pytest.fixture(autouse=True)
def _no_key_in_environment(monkeypatch):
    for name in ("TRACEEVAL_API_KEY", "OPENAI_API_KEY", "MY_KEY"):
        monkeypatch.delenv(name, raising=False)


# -- settings -------------------------------------------------------------------------------------
def test_settings_defaults_and_public_params():
    settings = RunSettings(URL + "/", "qwen2.5-coder-7b")
    assert settings.base_url == URL and settings.stored_name == "qwen2.5-coder-7b"
    assert RunSettings(URL, "m", name="my-run").stored_name == "my-run"
    params = settings.public_params()
    assert params["temperature"] == 0.0 and params["max_tokens"] == 4096 and params["concurrency"] == 4
    assert RunSettings.from_params({**params, "from_a_newer_version": 1}) == settings


@pytest.mark.parametrize("options, message", [
    ({"concurrency": 0}, "concurrency must be at least 1 (got 0)"),
    ({"max_tokens": 0}, "max tokens must be at least 1 (got 0)"),
    ({"timeout_s": 0}, "timeout must be more than 0 s (got 0)"),
    ({"retries": -1}, "retries must be 0 or more (got -1)"),
    ({"base_url": "localhost:8000/v1"}, "endpoint URL 'localhost:8000/v1' must start with http:// or https://"),
    ({"model": " "}, "no model id given for the endpoint"),
])
def test_settings_are_validated(options, message):
    values = {"base_url": URL, "model": "m", **options}
    with pytest.raises(UsageError) as error:
        RunSettings(**values)
    assert str(error.value) == message


# -- the API key ----------------------------------------------------------------------------------
def test_key_resolution_order(monkeypatch):
    settings = RunSettings(URL, "m")
    assert resolve_api_key(settings) is None  # a local server needs none
    save_api_key(URL, "from-file")
    assert resolve_api_key(settings) == "from-file"
    monkeypatch.setenv("OPENAI_API_KEY", "from-openai-var")
    assert resolve_api_key(settings) == "from-openai-var"
    monkeypatch.setenv("TRACEEVAL_API_KEY", "from-traceeval-var")
    assert resolve_api_key(settings) == "from-traceeval-var"
    monkeypatch.setenv("MY_KEY", "from-named-var")
    assert resolve_api_key(RunSettings(URL, "m", api_key_env="MY_KEY")) == "from-named-var"


def test_named_key_variable_must_be_set():
    with pytest.raises(UsageError) as error:
        resolve_api_key(RunSettings(URL, "m", api_key_env="MY_KEY"))
    assert str(error.value) == "environment variable MY_KEY (named for the API key) is not set"


def test_saved_key_file_is_private_and_keys_can_be_forgotten():
    save_api_key(URL + "/", "sk-one")
    save_api_key("https://api.example.com/v1", "sk-two")
    path = credentials_path()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert json.loads(path.read_text()) == {URL: {"api_key": "sk-one"},
                                            "https://api.example.com/v1": {"api_key": "sk-two"}}
    assert forget_api_key(URL) is True and forget_api_key(URL) is False
    assert resolve_api_key(RunSettings(URL, "m")) is None
    assert resolve_api_key(RunSettings("https://api.example.com/v1", "m")) == "sk-two"
    assert [p.name for p in path.parent.iterdir()] == ["credentials.json"]  # no temporary file left


def test_credentials_readable_by_others_are_refused():
    save_api_key(URL, "sk-secret-value")
    path = credentials_path()
    os.chmod(path, 0o644)
    with pytest.raises(EndpointError) as error:
        resolve_api_key(RunSettings(URL, "m"))
    assert str(error.value) == f"{path}: readable by other users (mode 0644); run chmod 600 {path}"
    os.chmod(path, 0o600)
    assert resolve_api_key(RunSettings(URL, "m")) == "sk-secret-value"


def test_broken_credentials_file_names_it_without_its_content():
    path = credentials_path()
    path.parent.mkdir(parents=True)
    path.write_text('{"http://x/v1": {"api_key": "sk-half')
    os.chmod(path, 0o600)
    with pytest.raises(EndpointError) as error:
        resolve_api_key(RunSettings(URL, "m"))
    assert str(error.value).startswith(f"{path}: not valid JSON") and "sk-half" not in str(error.value)


def test_bad_keys_are_not_saved():
    with pytest.raises(UsageError):
        save_api_key(URL, "two words")


def test_recent_endpoints_newest_first_without_duplicates():
    assert load_recent_endpoints() == []
    for n in range(12):
        remember_endpoint(RunSettings(URL, f"model-{n}"))
    remember_endpoint(RunSettings(URL, "model-5", concurrency=8))
    recent = load_recent_endpoints()
    assert len(recent) == 10
    assert [entry["model"] for entry in recent[:3]] == ["model-5", "model-11", "model-10"]
    assert recent[0]["concurrency"] == 8 and [e["model"] for e in recent].count("model-5") == 1
    assert set(recent[0]) == set(RunSettings(URL, "m").public_params())


# -- prices ---------------------------------------------------------------------------------------
def test_price_table(tmp_path):
    path = tmp_path / "prices.json"
    path.write_text(json.dumps({"gpt-*": {"input_per_mtok": 1.0, "output_per_mtok": 2.0},
                                "gpt-5.4": {"input_per_mtok": 2.5, "output_per_mtok": 10},
                                "*": {"input_per_mtok": 0, "output_per_mtok": 0}}))
    table = PriceTable.load(path)
    assert table.cost("gpt-5.4", 1_000_000, 100_000) == pytest.approx(3.5)  # exact beats the pattern
    assert table.cost("gpt-5.4-mini", 2_000_000, 1_000_000) == pytest.approx(4.0)
    assert table.cost("llama", 1000, 1000) == 0.0
    assert table.cost("gpt-5.4", None, 10) is None
    assert PriceTable({}).cost("gpt-5.4", 1, 1) is None


@pytest.mark.parametrize("text, problem", [
    ("{", "not valid JSON"), ("[]", "expected"),
    ('{"m": {"input_per_mtok": "cheap", "output_per_mtok": 1}}', "entry 'm' needs numbers >= 0"),
    ('{"m": {"input_per_mtok": 1}}', "entry 'm' needs numbers >= 0"),
])
def test_malformed_price_table(tmp_path, text, problem):
    path = tmp_path / "prices.json"
    path.write_text(text)
    with pytest.raises(UsageError) as error:
        PriceTable.load(path)
    assert str(error.value).startswith(f"{path}: ") and problem in str(error.value)
    assert "\n" not in str(error.value)


# -- the answer cache -----------------------------------------------------------------------------
def test_cache_keeps_answers_by_prompt_and_decoding(tmp_path):
    settings = RunSettings(URL, "m")
    key = cache_key("abc", settings)
    assert key != cache_key("abd", settings)
    assert key != cache_key("abc", RunSettings(URL, "m", max_tokens=100))
    assert key == cache_key("abc", RunSettings(URL, "m", name="other", concurrency=9))
    with AnswerCache() as cache:
        assert cache.path == default_cache_path() and cache.path.parent.name == "cache"  # the test's folder
        assert cache.get(key) is None
        cache.put(key, CachedAnswer(None, "stop", 10, 0, 0.5))
        assert cache.get(key) == CachedAnswer(None, "stop", 10, 0, 0.5, cache.get(key).created_at)
    with AnswerCache() as reopened:
        assert reopened.get(key).finish_reason == "stop"


def test_corrupt_cache_warns_and_is_skipped(tmp_path, caplog):
    path = tmp_path / "answers.sqlite"
    path.write_bytes(b"this is not a database" * 100)
    with caplog.at_level(logging.WARNING):
        cache = AnswerCache(path)
    assert not cache.available and "answer cache unusable" in caplog.text
    cache.put("k", CachedAnswer("1. x"))
    assert cache.get("k") is None
