"""conftest's reading of $CI: a CI run fails the tests whose UD data is missing."""
import pytest
from conftest import under_ci


@pytest.mark.parametrize("value, ci", [
    (None, False), ("", False), ("0", False), ("false", False), ("False", False),
    ("no", False), ("NO", False), (" false ", False),
    ("true", True), ("1", True), ("yes", True), ("TRUE", True), ("github", True)])
def test_ci_is_a_truthy_value_of_the_variable(value, ci):
    """CI is set only by a value that says so (CI=false and CI=0 were CI: bool of the string)."""
    assert under_ci(value) is ci
