import pytest

from replcheck import docs


def test_generated_docs_are_up_to_date() -> None:
    for filename, page in docs.PAGES.items():
        assert (docs.DOCS / filename).read_text() == page(), (
            f"run python -m replcheck.docs ({filename})"
        )


@pytest.mark.slow
@pytest.mark.parametrize("mutant", docs.builtin_mutants())
def test_each_mutant_has_its_counterexample_drawn(mutant: str) -> None:
    path = docs.DOCS / "counterexamples" / docs.counterexample_file(mutant)
    assert path.is_file(), f"run python -m replcheck.docs ({path.name})"
    page = docs.counterexample_page(mutant)
    assert "counterexample: " in page, f"{mutant} breaks nothing on its first configuration"
    assert path.read_text() == page, f"run python -m replcheck.docs ({path.name})"


def test_no_counterexample_page_is_left_for_a_removed_mutant() -> None:
    expected = {docs.counterexample_file(m) for m in docs.builtin_mutants()}
    present = {p.name for p in (docs.DOCS / "counterexamples").glob("*.md")}
    assert present == expected
