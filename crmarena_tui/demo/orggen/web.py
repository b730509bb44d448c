"""Direct web orders (B2C only): purchases without an opportunity or contract.

They are owned by the 'Web Storefront' user, have no ContractId, and therefore never count in the
sales-amount rule (which follows Opportunity -> Contract -> Order).
"""

from __future__ import annotations

from datetime import timedelta

from crmarena_tui.demo.orggen.context import DATA_END, DATA_START, BuildContext
from crmarena_tui.demo.orggen.sales import legal_quantity


def build_web_orders(ctx: BuildContext) -> None:
    if not ctx.theme.web_orders:
        return
    rng = ctx.rng("web")
    products = ctx.index["products"]
    rules = {r.product: r for r in ctx.theme.config_rules}
    names = sorted(products)
    span = (DATA_END - DATA_START).days
    for _ in range(max(1, round(ctx.theme.web_orders * ctx.scale))):
        account = rng.choice(ctx.index["accounts"])
        day = DATA_START + timedelta(days=rng.randint(30, span))
        oid = ctx.add(
            "Order",
            AccountId=account,
            ContractId=None,
            Status="Activated",
            EffectiveDate=day.isoformat(),
            Pricebook2Id=ctx.index["pricebook"],
            OwnerId=ctx.index["web_user"],
        )
        chosen = rng.sample(names, rng.randint(1, 3))
        for name in list(chosen):
            rule = rules.get(name)
            if rule and rule.kind == "requires" and rule.other not in chosen:
                chosen.append(rule.other)
        for name in chosen:
            prod = products[name]
            qty = (
                min(legal_quantity(ctx, rng, name), 2)
                if name not in rules
                else legal_quantity(ctx, rng, name)
            )
            ctx.add(
                "OrderItem",
                OrderId=oid,
                Product2Id=prod["id"],
                Quantity=float(qty),
                UnitPrice=prod["price"],
                PriceBookEntryId=prod["pbe"],
            )
        ctx.index.setdefault("orders", []).append((oid, account, day))
