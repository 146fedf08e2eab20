"""The tools the model suite offers the real model: small, typed, with ways to get them wrong."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from annotated_types import Ge, Gt, Le
from pydantic import Field

from toolcast import ToolError


def weather(city: str, unit: Literal["celsius", "fahrenheit"] = "celsius") -> str:
    """Current weather for a city.

    Args:
        city: City name.
        unit: "celsius" or "fahrenheit".
    """
    return f"{city}: 21 degrees {unit}" if unit == "celsius" else f"{city}: 70 degrees {unit}"


def add(a: int, b: int) -> int:
    """Add two integers.

    Args:
        a: First number.
        b: Second number.
    """
    return a + b


def convert(amount: Annotated[float, Gt(0)], currency: Literal["USD", "GBP", "JPY"]) -> str:
    """Convert euros into another currency.

    Args:
        amount: Euros to convert (more than 0).
        currency: "USD", "GBP" or "JPY".
    """
    rate = {"USD": 1.1, "GBP": 0.85, "JPY": 160.0}[currency]
    return f"{amount} EUR = {round(amount * rate, 2)} {currency}"


def set_alarm(time: Annotated[str, Field(pattern=r"^[0-2][0-9]:[0-5][0-9]$")]) -> str:
    """Set an alarm.

    Args:
        time: The time as HH:MM, 24-hour clock.
    """
    return f"Alarm set for {time}."


def order(sku: str, quantity: Annotated[int, Ge(1), Le(10)] = 1) -> str:
    """Order a product by its SKU.

    Args:
        sku: The product code, like MUG-BLUE.
        quantity: How many, 1 to 10.
    """
    if not sku.isupper():
        raise ToolError(f"Unknown SKU {sku!r}: SKUs are upper case, like MUG-BLUE.")
    return f"Ordered {quantity} x {sku}."


def find_product(query: str, max_price: float | None = None) -> list[str]:
    """Search the shop.

    Args:
        query: What to look for.
        max_price: Highest price in euros, or null for any.
    """
    found = ["MUG-BLUE (8 EUR)", "MUG-RED (12 EUR)"]
    return [f for f in found if query.split()[0].lower() in f.lower()] or found


TOOLS = [weather, add, convert, set_alarm, order, find_product]

CONVERSATIONS = [
    ("weather", "What is the weather in Paris, in fahrenheit?"),
    ("add", "What is 17 plus 25?"),
    ("convert", "Convert 50 euros to Japanese yen."),
    ("set_alarm", "Set an alarm for 07:30."),
    ("order", "Order three blue mugs, SKU MUG-BLUE."),
    ("find_product", "Find me a blue mug under 10 euros."),
]
"""(the tool a sensible answer calls, the user's request)."""


RESULT = "Paris: 21 degrees celsius"


def history(model: Any) -> list[dict[str, Any]]:
    """A weather call already made and answered, in `model`'s own user message."""
    call = {
        "id": "call_0",
        "type": "function",
        "function": {"name": "weather", "arguments": '{"city": "Paris"}'},
    }
    return [
        *model.user_message("Weather in Paris?"),
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_0", "content": RESULT},
    ]
