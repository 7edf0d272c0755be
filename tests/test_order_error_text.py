"""How a refusal reads: its rule once, even when the message already ends by naming it."""
from pbem.core.orders import OrderError


def test_the_rule_is_named_once():
    assert str(OrderError("no line of sight from 0909 to 0505", "19.51")) == \
        "no line of sight from 0909 to 0505 (rule 19.51)"
    assert str(OrderError("0406 is not one of its registrations (18.722)", "18.722")) == \
        "0406 is not one of its registrations (18.722)"
    assert str(OrderError("see the note (its side note, 18.722)", "18.722", line=3, text="call RHA at 0406")) == \
        "line 3: see the note (its side note, 18.722) [call RHA at 0406]"
    assert str(OrderError("a different rule (18.1)", "18.722")) == "a different rule (18.1) (rule 18.722)"
