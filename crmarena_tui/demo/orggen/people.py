"""Users (service and sales agents), territories with their agents, accounts and contacts.

Each state belongs to exactly one Territory2 (its Description lists the states, comma-separated);
every sales agent is assigned to one territory (UserTerritory2Association). B2B accounts are
companies; B2C accounts are households named after their main contact.
"""

from __future__ import annotations

from crmarena_tui.demo.names import (
    COMPANY_HEADS,
    COMPANY_TAILS,
    INDUSTRIES,
    LANGUAGES,
    STATES,
    TERRITORY_STATES,
    TIME_ZONES,
)
from crmarena_tui.demo.orggen.context import BuildContext, phone, slug


def _user(ctx: BuildContext, rng, role: str) -> str:
    p = ctx.person(rng)
    handle = slug(p.name)
    return ctx.add(
        "User",
        FirstName=p.first,
        LastName=p.last,
        Name=p.name,
        Email=f"{handle}@{ctx.theme.email_domain}",
        Phone=phone(rng),
        Username=f"{handle}@{ctx.theme.email_domain}.demo",
        Alias=(p.first[0] + p.last.replace(" ", ""))[:8].lower(),
        LanguageLocaleKey=rng.choice(LANGUAGES),
        TimeZoneSidKey=rng.choice(TIME_ZONES),
        IsActive=1,
    )


def build_people(ctx: BuildContext) -> None:
    rng = ctx.rng("people")
    service = [_user(ctx, rng, "service") for _ in range(ctx.count("service_agents", 3))]
    sales = [_user(ctx, rng, "sales") for _ in range(ctx.count("sales_agents", 10))]
    ctx.index["service_agents"] = service
    ctx.index["sales_agents"] = sales
    if ctx.theme.web_orders:
        ctx.index["web_user"] = ctx.add(
            "User",
            FirstName="Web",
            LastName="Storefront",
            Name="Web Storefront",
            Email=f"webstore@{ctx.theme.email_domain}",
            Phone=None,
            Username=f"webstore@{ctx.theme.email_domain}.demo",
            Alias="websf",
            LanguageLocaleKey="en_US",
            TimeZoneSidKey="America/New_York",
            IsActive=1,
        )
    user_rows = {r["Id"]: r for r in ctx.rows["User"]}
    ctx.index["user_rows"] = user_rows

    territory_of_state: dict[str, str] = {}
    territory_agents: dict[str, list[str]] = {}
    for name, states in TERRITORY_STATES:
        tid = ctx.add("Territory2", Name=name, Description=",".join(states))
        territory_agents[tid] = []
        for state in states:
            territory_of_state[state] = tid
    territories = list(territory_agents)
    order = sales[:]
    rng.shuffle(order)
    for n, agent in enumerate(order):
        tid = territories[n % len(territories)]
        territory_agents[tid].append(agent)
        ctx.add("UserTerritory2Association", UserId=agent, Territory2Id=tid)
    ctx.index["territory_of_state"] = territory_of_state
    ctx.index["territory_agents"] = territory_agents
    _accounts(ctx, rng)


def _accounts(ctx: BuildContext, rng) -> None:
    n_accounts = ctx.count("Account", 3)
    n_contacts = max(n_accounts, ctx.count("Contact", 3))
    accounts: list[str] = []
    contacts_by_account: dict[str, list[str]] = {}
    account_state: dict[str, str] = {}
    used: set[str] = set()
    b2c = ctx.org_type == "b2c"
    if b2c:  # households: fewer contacts each
        n_accounts = max(n_accounts, n_contacts // 2)
    for n in range(n_accounts):
        state = rng.choice(STATES)
        if b2c:
            owner = ctx.person(rng)
            name = owner.name
            aid = ctx.add(
                "Account",
                Name=name,
                Phone=phone(rng),
                Industry="Consumer",
                Description=f"Household of {name} in {state}; shops online and in store.",
                NumberOfEmployees=None,
                ShippingState=state,
            )
            contacts_by_account[aid] = [_contact(ctx, rng, aid, owner.first, owner.last, name)]
        else:
            name = f"{rng.choice(COMPANY_HEADS)} {rng.choice(COMPANY_TAILS)}"
            while name in used:
                name = f"{rng.choice(COMPANY_HEADS)} {rng.choice(COMPANY_TAILS)}"
                if len(used) > 900:
                    name = f"{name} {n}"
            used.add(name)
            industry = rng.choice(INDUSTRIES)
            size = rng.choice((45, 120, 380, 900, 2400, 7800, 15000))
            aid = ctx.add(
                "Account",
                Name=name,
                Phone=phone(rng),
                Industry=industry,
                Description=f"{name} is a {industry.lower()} company based in {state} with "
                f"about {size:,} employees.",
                NumberOfEmployees=size,
                ShippingState=state,
            )
            contacts_by_account[aid] = []
        accounts.append(aid)
        account_state[aid] = state
    remaining = n_contacts - sum(len(v) for v in contacts_by_account.values())
    weights = [rng.uniform(0.3, 3.0) for _ in accounts]
    for aid in accounts:  # every B2B account gets at least one contact
        if not contacts_by_account[aid] and remaining > 0:
            p = ctx.person(rng)
            contacts_by_account[aid].append(
                _contact(ctx, rng, aid, p.first, p.last, _account_name(ctx, aid))
            )
            remaining -= 1
    for aid in rng.choices(accounts, weights=weights, k=max(0, remaining)):
        if b2c:  # a household member shares the surname
            p = ctx.person(rng, last=_household_last(ctx, aid))
            contacts_by_account[aid].append(
                _contact(ctx, rng, aid, p.first, p.last, _account_name(ctx, aid))
            )
        else:
            p = ctx.person(rng)
            contacts_by_account[aid].append(
                _contact(ctx, rng, aid, p.first, p.last, _account_name(ctx, aid))
            )
    ctx.index["accounts"] = accounts
    ctx.index["account_state"] = account_state
    ctx.index["contacts_by_account"] = contacts_by_account
    ctx.index["account_name"] = {r["Id"]: r["Name"] for r in ctx.rows["Account"]}
    ctx.index["contact_rows"] = {r["Id"]: r for r in ctx.rows["Contact"]}


def _account_name(ctx: BuildContext, aid: str) -> str:
    cache = ctx.index.setdefault("_account_names", {})
    if aid not in cache:
        cache.update({r["Id"]: r["Name"] for r in ctx.rows["Account"]})
    return cache[aid]


def _household_last(ctx: BuildContext, aid: str) -> str:
    return _account_name(ctx, aid).split(" ")[-1]


def _contact(ctx: BuildContext, rng, aid: str, first: str, last: str, account_name: str) -> str:
    name = f"{first} {last}"
    if ctx.org_type == "b2c":
        email = f"{slug(name)}{rng.randint(1, 99)}@mailbox.example"
    else:
        email = f"{slug(name)}@{slug(account_name).replace('.', '')}.example"
    return ctx.add("Contact", FirstName=first, LastName=last, Name=name, Email=email, AccountId=aid)
