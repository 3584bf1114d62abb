"""app.py: what belongs to the whole API (binary types, accepted content types)."""


def test_every_upload_type_is_a_binary_type(app):
    from chalicelib.areas.pages.service_uploads import EXTENSIONS

    missing = [content_type for content_type in EXTENSIONS if content_type not in app.api.binary_types]
    assert missing == []


def test_routes_accept_any_content_type_so_our_decorator_answers(app):
    narrow = [(path, method) for path, methods in app.routes.items() for method, entry in methods.items()
              if "*/*" not in entry.content_types and "multipart/form-data" not in entry.content_types]
    assert narrow == []
