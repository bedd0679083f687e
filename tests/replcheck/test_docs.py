from replcheck import docs


def test_generated_docs_are_up_to_date() -> None:
    for filename, page in docs.PAGES.items():
        assert (docs.DOCS / filename).read_text() == page(), (
            f"run python -m replcheck.docs ({filename})"
        )
