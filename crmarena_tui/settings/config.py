"""Typed settings: environment variables prefixed `CRMARENA_TUI_`, then the config file.

The config file is `$XDG_CONFIG_HOME/crmarena-tui/config.toml`. API keys are never read from here
into the database or logs: provider keys stay in the environment under each provider's usual
variable name (`OPENAI_API_KEY`, `ANTHROPIC_API_KEY`, ...); `api_key` below is a `SecretStr` for
OpenAI-compatible servers that need one and is only ever handed to the model call.
"""

from __future__ import annotations

import warnings
from datetime import date
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field, SecretStr
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from crmarena_tui.settings import locations
from crmarena_tui.settings.config_problem import SettingsProblem
from crmarena_tui.settings.setting_rules import RULES

ENV_PREFIX = "CRMARENA_TUI_"

DEFAULT_TAXONOMY: tuple[str, ...] = (
    "wrong object",
    "wrong field",
    "wrong filter or date range",
    "aggregation error",
    "hallucinated Id",
    "misread policy",
    "premature answer",
    "format violation",
    "gave up",
    "confidentiality leak",
    "over-refusal",
    "misunderstood user",
    "unrecovered tool error",
    "other",
)


# The `schema` setting's name is the one users write (config key `schema`, CRMARENA_TUI_SCHEMA);
# it shadows pydantic's deprecated `BaseModel.schema()` classmethod, which nothing here calls.
warnings.filterwarnings("ignore", 'Field name "schema" in "Settings" shadows', UserWarning)


def _rule(name: str) -> BeforeValidator:
    """A setting `quick_setting` also reads is read by the same rule (settings/setting_rules.py)."""
    return BeforeValidator(RULES[name].read)


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX,
        extra="ignore",
        toml_file=None,
    )

    db: Annotated[Path | None, _rule("db")] = Field(
        default=None, description="Sessions database (default: XDG data dir)."
    )
    participant: Annotated[str | None, _rule("participant")] = Field(
        default=None, description="Your name as a human participant."
    )
    judge_model: str | None = Field(
        default=None, description="litellm model used for answer extraction and privacy judging."
    )
    judge_temperature: float | None = Field(
        default=None,
        ge=0,
        description="Temperature sent to the judge under every protocol (default: none under "
        "`upstream`, as upstream's evaluator sent none, so the provider's default applies; 0 "
        "under `workbench`).",
    )
    agent_model: str | None = Field(default=None, description="Default litellm model for agents.")
    user_model: str | None = Field(
        default=None, description="litellm model for the simulated user."
    )
    lease_timeout: float = Field(
        default=120.0,
        gt=0,
        description="Seconds a task lease lasts without a call from its holder (an MCP client, "
        "a `run` worker): after it, the task is handed to another client and its session resumed.",
    )
    api_base: str | None = Field(default=None, description="OpenAI-compatible base URL for agents.")
    api_key: SecretStr | None = Field(default=None, description="Key for that base URL, if needed.")
    upstream_prompts: Path | None = Field(
        default=None,
        description="A checkout of upstream's repository (SalesforceAIResearch/CRMArena) whose "
        "own prompts the `upstream` protocol sends (agent, format correction, simulated user, "
        "judges), read as data (never imported); unset: this project's paraphrase.",
    )
    protocol: Literal["upstream", "workbench"] = Field(
        default="upstream",
        description="How attempts are graded: `upstream` as upstream's evaluator does (scores "
        "comparable with the paper) or `workbench` (this project's more forgiving reading).",
    )
    schema: str = Field(  # type: ignore[assignment]
        default="hub",
        min_length=1,
        description="Where the agent's schema text comes from under the upstream protocol: "
        "`hub` (the hub's b2b_schema / b2c_schema rows, through the datasets cache), a file of "
        "those rows (.json, .jsonl, .parquet), or `builtin` (this project's descriptions: a "
        "departure recorded on each session).",
    )
    org_today: date | None = Field(
        default=None,
        description="The day a local org's relative date literals (TODAY, LAST_N_MONTHS:4, ...) "
        "count from, under either protocol (as --org-today does); unset: under `upstream` the "
        "run's date, as the live org counted, under `workbench` the task's date.",
    )
    taxonomy: list[str] = Field(default_factory=lambda: list(DEFAULT_TAXONOMY))
    hidden_labels: Annotated[bool, _rule("hidden_labels")] = Field(
        default=RULES["hidden_labels"].default, description="Hide other annotators' labels."
    )
    keymap: dict[str, str] = Field(
        default_factory=dict,
        description="Key binding id -> keys (comma-separated), e.g. workspace.run-query = 'f5'.",
    )
    lenient: Annotated[bool, _rule("lenient")] = Field(
        default=RULES["lenient"].default,
        description="Local orgs answer queries Salesforce refuses (as --lenient does).",
    )
    blind: Annotated[bool, _rule("blind")] = Field(
        default=RULES["blind"].default,
        description="Blind mode (as --blind does): the task browser hides task types, metrics "
        "and idx and lists the tasks in a neutral order; `grade --show-gold`, "
        "`tasks list --with-answers` and `tasks export` refuse.",
    )
    idle_pause_minutes: float = Field(
        default=2.0,
        ge=0,
        description="Minutes without a key or mouse input after which the workspace pauses the "
        "clock by itself (0: never).",
    )
    event_text_limit: Annotated[int, _rule("event_text_limit")] = Field(
        default=RULES["event_text_limit"].default,
        description="The longest text (in characters) one stored event keeps whole: a longer "
        "model reply is stored cut, with a marker and its full length (storage/event_cap.py).",
    )
    mcp_result_chars: int = Field(
        default=100_000,
        ge=1_000,
        description="The most characters one query result of the MCP tools holds (workbench): "
        "a larger result, or one of over 2,000 records, is paged (`query_more`) and says how to "
        "narrow the query (agents/result_pages.py).",
    )
    join_attempts: Annotated[int, _rule("join_attempts")] = Field(
        default=RULES["join_attempts"].default,
        description="Wrong join codes for one participant of a study, from any connection, "
        "after which the name is locked (`serve --study`, the join screen).",
    )
    join_delay_seconds: Annotated[float, _rule("join_delay_seconds")] = Field(
        default=RULES["join_delay_seconds"].default,
        description="Seconds before a study join screen's first refusal shows; each next "
        "refusal on the same connection waits twice as long (up to a minute).",
    )
    join_lockout_minutes: Annotated[float, _rule("join_lockout_minutes")] = Field(
        default=RULES["join_lockout_minutes"].default,
        description="How long a study participant's name stays locked after too many wrong "
        "join codes.",
    )

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        toml = TomlConfigSettingsSource(settings_cls, toml_file=locations.config_file())
        return (init_settings, env_settings, toml)

    def db_path(self, given: str | Path | None = None) -> Path:
        """The sessions database (`locations.sessions_db_path`): `given` (an option), else `db`
        as read from the environment or the config file, else the default place."""
        return locations.sessions_db_path(given or self.db)


def load_settings(**overrides: Any) -> Settings:
    """Settings from init overrides (None values ignored), the environment and the config file.

    A bad value raises `SettingsProblem` naming where it came from: `CRMARENA_TUI_<KEY>`, or the
    config file, its line and the key (`config_problem.describe`)."""
    import tomllib

    from pydantic import ValidationError
    from pydantic_settings import SettingsError

    from crmarena_tui.settings import config_problem

    given = {k: v for k, v in overrides.items() if v is not None}
    try:
        return Settings(**given)
    except tomllib.TOMLDecodeError as exc:
        raise SettingsProblem(config_problem.toml_error(locations.config_file(), exc)) from None
    except SettingsError as exc:  # a variable whose value is not the JSON its setting needs
        raise SettingsProblem(config_problem.env_parse_error(str(exc), Settings)) from None
    except ValidationError as exc:
        raise SettingsProblem(
            config_problem.describe(exc.errors(), given, locations.config_file(), ENV_PREFIX)
        ) from None
