"""The media library's PDF documents (checked by parsing them, their
metadata removed, read back with pypdf), its items' alt text (PATCH with
If-Match), and the PNG a WebP is handed to LinkedIn as."""

import io

import psycopg
import pytest
from PIL import Image
from pypdf import PdfReader, PdfWriter
from pypdf.generic import (
    ArrayObject,
    DictionaryObject,
    NameObject,
    StreamObject,
    TextStringObject,
)

from content_publishing.store.db import execute, transaction
from tests.conftest import Caller, assert_error
from tests.test_members import add_member

V1 = "/functions/v1"
MEDIA = f"{V1}/media"
ITEM = f"{V1}/media-item/"
PDF = {"Content-Type": "application/pdf"}


def pdf(pages=3, metadata=True, action=None, encrypt=None, page_action=None):
    """A PDF made here: `metadata` gives it an author, a producer, dates and
    XMP; `action` an open action of that type, `page_action` one on its
    first page; `encrypt` (user password, owner password)."""
    writer = PdfWriter()
    for _ in range(pages):
        writer.add_blank_page(width=612, height=792)
    if metadata:
        writer.add_metadata(
            {
                "/Author": "Jane Secret",
                "/Producer": "SecretWriter 9",
                "/Creator": "SecretApp",
                "/CreationDate": "D:20200101120000Z",
                "/ModDate": "D:20200202120000Z",
            }
        )
        xmp = StreamObject()
        xmp.set_data(b'<x:xmpmeta xmlns:x="adobe:ns:meta/">jane.secret@example.com</x:xmpmeta>')
        xmp.update({NameObject("/Type"): NameObject("/Metadata")})
        writer.root_object[NameObject("/Metadata")] = writer._add_object(xmp)
    if action:
        writer.root_object[NameObject("/OpenAction")] = _action(action)
    if page_action:
        writer.pages[0][NameObject("/AA")] = DictionaryObject(
            {NameObject("/O"): _action(page_action)}
        )
    if encrypt:
        writer.encrypt(*encrypt)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def _action(kind):
    action = {NameObject("/S"): NameObject(kind)}
    if kind == "/JavaScript":
        action[NameObject("/JS")] = TextStringObject("app.alert('hello')")
    else:
        action[NameObject("/F")] = TextStringObject("calc.exe")
    return DictionaryObject(action)


XFA_SCRIPT = (
    b'<xdp:xdp xmlns:xdp="http://ns.adobe.com/xdp/"><template><subform name="form">'
    b'<event activity="initialize"><script contentType="application/x-javascript">'
    b"app.alert('hello')</script></event></subform></template></xdp:xdp>"
)
XFA_PLAIN = (
    b'<xdp:xdp xmlns:xdp="http://ns.adobe.com/xdp/"><template><subform name="form">'
    b'<field name="total"/></subform></template></xdp:xdp>'
)


def with_xfa(xml, packets=False):
    """A PDF with an XFA form of `xml`: one stream, or (`packets`) an array
    of names and streams, as Designer writes it."""
    writer = PdfWriter()
    writer.add_blank_page(width=612, height=792)
    form = StreamObject()
    form.set_data(xml)
    ref = writer._add_object(form)
    xfa = ArrayObject([TextStringObject("template"), ref]) if packets else ref
    writer.root_object[NameObject("/AcroForm")] = DictionaryObject(
        {NameObject("/Fields"): ArrayObject(), NameObject("/XFA"): xfa}
    )
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def embedding(name, data, go_to=True):
    """A PDF carrying `data` as the embedded file `name`; `go_to`: opened by
    a GoToE open action, as an attack would."""
    writer = PdfWriter()
    writer.add_blank_page(width=612, height=792)
    writer.add_attachment(name, data)
    if go_to:
        target = DictionaryObject(
            {NameObject("/R"): NameObject("/C"), NameObject("/N"): TextStringObject(name)}
        )
        writer.root_object[NameObject("/OpenAction")] = DictionaryObject(
            {NameObject("/S"): NameObject("/GoToE"), NameObject("/T"): target}
        )
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def upload(api, data, headers=PDF, status=201):
    r = api.post(MEDIA, data=data, headers=headers)
    assert r.status_code == status, r.get_json()
    return r.get_json()


def file_of(client, media, ext=None):
    path = "/" + media["url"].split("/", 3)[3]
    if ext:
        path = path.rsplit(".", 1)[0] + "." + ext
    return client.get(path)


def test_a_pdf_is_kept_without_its_document_information_or_xmp(api, client):
    original = pdf(3)
    assert b"Jane Secret" in original and b"jane.secret@example.com" in original
    media = upload(api, original)
    assert media["content_type"] == "application/pdf" and media["url"].endswith(".pdf")
    assert media["pages"] == 3 and (media["width"], media["height"]) == (612, 792)
    assert media["alt_text"] is None and media["version"] == 1
    served = file_of(client, media)
    assert served.status_code == 200 and served.headers["Content-Type"] == "application/pdf"
    assert len(served.data) == media["bytes"]
    assert served.headers["Content-Security-Policy"] == "default-src 'none'"
    reader = PdfReader(io.BytesIO(served.data))
    assert len(reader.pages) == 3 and not reader.is_encrypted
    assert reader.metadata is None  # no document information: no author, producer, dates
    assert reader.xmp_metadata is None and "/Metadata" not in reader.trailer["/Root"]
    for secret in (b"Jane Secret", b"SecretWriter", b"SecretApp", b"jane.secret", b"2020"):
        assert secret not in served.data
    assert upload(api, original, status=200)["id"] == media["id"]  # the same bytes again


BAD_PDFS = [
    ("encrypted", pdf(encrypt=("secret", "owner")), "encrypted"),
    ("encrypted, no password to open", pdf(encrypt=("", "owner")), "encrypted"),
    ("cut short", pdf(3)[:400], "damaged"),
    ("not a PDF", b"%PDF-1.7\nthis is no PDF at all\n%%EOF", "damaged"),
    ("an image sent as a PDF", b"\x89PNG\r\n\x1a\n" + b"\x00" * 40, "not a PDF"),
    ("empty", b"", "not a PDF"),
    ("a JavaScript open action", pdf(action="/JavaScript"), "JavaScript action"),
    ("JavaScript when a page opens", pdf(page_action="/JavaScript"), "JavaScript action"),
    ("a Launch action", pdf(action="/Launch"), "Launch action"),
    ("an XFA script", with_xfa(XFA_SCRIPT), "XFA form with a script"),
    ("an XFA script among packets", with_xfa(XFA_SCRIPT, packets=True), "XFA form with a script"),
    (
        "an embedded PDF with a JavaScript open action",
        embedding("inner.pdf", pdf(action="/JavaScript")),
        "embedded file (inner.pdf) holding a JavaScript action",
    ),
    (
        "a PDF embedded in an embedded PDF, with a Launch action",
        embedding("outer.pdf", embedding("inner.pdf", pdf(action="/Launch"))),
        "embedded file (outer.pdf) holding an embedded file (inner.pdf) holding a Launch action",
    ),
    (
        "an embedded page with a script",
        embedding("page.html", b"<html><script>alert(1)</script></html>", go_to=False),
        "embedded file (page.html) holding a script",
    ),
    ("an embedded JavaScript file", embedding("run.js", b"app.alert(1)", go_to=False), "script"),
    ("301 pages", pdf(301, metadata=False), "301 pages"),
    ("no page", pdf(0, metadata=False), "no page"),
]


@pytest.mark.parametrize("name, data, words", BAD_PDFS, ids=[b[0] for b in BAD_PDFS])
def test_a_pdf_the_library_does_not_take_is_400_naming_why(api, name, data, words):
    error = assert_error(api.post(MEDIA, data=data, headers=PDF), 400, "bad_request")
    assert words in error["message"], error["message"]
    assert api.get(MEDIA).get_json()["total"] == 0


def test_an_xfa_form_or_embedded_file_without_scripts_is_taken(api):
    assert upload(api, with_xfa(XFA_PLAIN))["pages"] == 1
    clean = embedding("inner.pdf", pdf(2), go_to=False)
    assert upload(api, clean)["pages"] == 1
    assert upload(api, embedding("data.csv", b"a,b\n1,2\n"))["pages"] == 1
    assert api.get(MEDIA).get_json()["total"] == 3


def test_300_pages_are_taken(api):
    assert upload(api, pdf(300, metadata=False))["pages"] == 300


def test_a_document_may_be_larger_than_an_image_up_to_its_own_cap(app, api):
    writer = PdfWriter()
    page = writer.add_blank_page(width=612, height=792)
    drawing = StreamObject()
    drawing.set_data(b"%" + b"x" * (21 * 1024 * 1024) + b"\n")  # 21 MiB: over the images' 20
    page[NameObject("/Contents")] = writer._add_object(drawing)
    out = io.BytesIO()
    writer.write(out)
    big = out.getvalue()
    assert len(big) > app.config["MEDIA_MAX_BYTES"]
    assert app.config["MEDIA_MAX_DOCUMENT_BYTES"] == 100 * 1024 * 1024
    assert upload(api, big)["pages"] == 1
    assert_error(
        api.post(MEDIA, data=big, headers={"Content-Type": "image/png"}), 413, "payload_too_large"
    )
    app.config["MEDIA_MAX_DOCUMENT_BYTES"] = 1024 * 1024
    assert_error(api.post(MEDIA, data=big + b" ", headers=PDF), 413, "payload_too_large")
    assert api.get(MEDIA).get_json()["total"] == 1


# --- alt text ------------------------------------------------------------------------------


def picture(fmt="PNG"):
    out = io.BytesIO()
    Image.new("RGB", (12, 10), "red").save(out, fmt)
    return out.getvalue()


def test_alt_text_is_set_with_if_match_and_shown(api):
    media = upload(api, picture(), {"Content-Type": "image/png"})
    item = api.get(ITEM + media["id"])
    assert item.status_code == 200 and item.headers["ETag"] == '"1"'
    r = api.patch(ITEM + media["id"], json={"alt_text": "A red field"}, headers={"If-Match": '"1"'})
    assert r.status_code == 200 and r.headers["ETag"] == '"2"'
    assert r.get_json()["alt_text"] == "A red field" and r.get_json()["version"] == 2
    assert api.get(MEDIA).get_json()["data"][0]["alt_text"] == "A red field"
    same = api.patch(ITEM + media["id"], json={"alt_text": "A red field"})
    assert same.get_json()["version"] == 2  # unchanged: no new version
    stale = api.patch(ITEM + media["id"], json={"alt_text": "lost"}, headers={"If-Match": '"1"'})
    assert assert_error(stale, 412, "precondition_failed")["details"]["current_version"] == 2
    assert api.patch(ITEM + media["id"], json={}).get_json()["alt_text"] == "A red field"
    cleared = api.patch(ITEM + media["id"], json={"alt_text": None})
    assert cleared.get_json()["alt_text"] is None and cleared.get_json()["version"] == 3
    assert api.patch(ITEM + media["id"], json={"alt_text": "x" * 4086}).status_code == 200


BAD_ALT = [
    ({"alt_text": "x" * 4087}, "alt_text"),
    ({"alt_text": 7}, "alt_text"),
    ({"alt_text": "bell\x07"}, "alt_text"),
    ({"alt_text": "ok", "width": 5}, "width"),
]


@pytest.mark.parametrize("body, field", BAD_ALT)
def test_bad_alt_text_is_400_and_changes_nothing(api, body, field):
    media = upload(api, picture(), {"Content-Type": "image/png"})
    error = assert_error(api.patch(ITEM + media["id"], json=body), 400, "validation_error")
    assert field in error["details"]
    assert api.get(ITEM + media["id"]).get_json() == media


def test_another_users_media_is_404(api, caller):
    media = upload(api, picture(), {"Content-Type": "image/png"})
    bob = caller("bob")
    assert_error(bob.get(ITEM + media["id"]), 404, "not_found")
    assert_error(bob.patch(ITEM + media["id"], json={"alt_text": "mine"}), 404, "not_found")
    assert_error(api.get(ITEM + "not-an-id"), 404, "not_found")
    assert api.get(ITEM + media["id"]).get_json()["alt_text"] is None


def test_alt_text_needs_posts_write(api, caller):
    media = upload(api, picture(), {"Content-Type": "image/png"})
    reader = caller("alice", scopes=["posts:read"])
    r = reader.patch(ITEM + media["id"], json={"alt_text": "x"})
    assert assert_error(r, 403, "insufficient_scope")["details"]["required_scope"] == "posts:write"


@pytest.fixture
def crew(client, runner, make_key):
    """Workspace acme: its owner, an editor, two contributors and a viewer."""
    found = {"owner": Caller(client, make_key("acme"))}
    for name, role in [
        ("editor", "editor"),
        ("ann", "contributor"),
        ("bo", "contributor"),
        ("vi", "viewer"),
    ]:
        found[name] = Caller(client, add_member(runner, "acme", name, role)[1])
    return found


def test_alt_text_is_changed_only_by_its_uploader_or_an_editor(crew):
    """A contributor changed any member's alt text: now only their own uploads'."""
    media = upload(crew["ann"], picture(), {"Content-Type": "image/png"})
    error = assert_error(
        crew["bo"].patch(ITEM + media["id"], json={"alt_text": "not mine"}), 403, "forbidden"
    )
    assert error["details"] == {"role": "contributor"} and "another member" in error["message"]
    assert_error(crew["vi"].patch(ITEM + media["id"], json={"alt_text": "x"}), 403, "forbidden")
    assert crew["owner"].get(ITEM + media["id"]).get_json() == media  # nothing changed
    r = crew["ann"].patch(ITEM + media["id"], json={"alt_text": "A red field"})
    assert r.status_code == 200 and r.get_json()["version"] == 2
    r = crew["editor"].patch(ITEM + media["id"], json={"alt_text": "A red square"})
    assert r.status_code == 200 and r.get_json()["alt_text"] == "A red square"
    # the same bytes sent again by bo are still ann's upload
    again = upload(crew["bo"], picture(), {"Content-Type": "image/png"}, status=200)
    assert again["id"] == media["id"]
    assert_error(crew["bo"].patch(ITEM + media["id"], json={"alt_text": "x"}), 403, "forbidden")


def test_media_uploaded_before_its_uploader_was_recorded_is_an_editors_to_change(crew, app):
    media = upload(crew["ann"], picture(), {"Content-Type": "image/png"})
    with app.app_context(), transaction():
        execute("UPDATE media SET created_by = NULL WHERE id = ?", (media["id"],))
    assert_error(crew["ann"].patch(ITEM + media["id"], json={"alt_text": "x"}), 403, "forbidden")
    assert crew["editor"].patch(ITEM + media["id"], json={"alt_text": "x"}).status_code == 200


# --- a WebP's PNG ----------------------------------------------------------------------------


def test_a_webp_has_its_png_at_the_same_address(api, client):
    media = upload(api, picture("WEBP"), {"Content-Type": "image/webp"})
    png = file_of(client, media, "png")
    assert png.status_code == 200 and png.headers["Content-Type"] == "image/png"
    assert Image.open(io.BytesIO(png.data)).size == (12, 10)
    assert png.headers["Cache-Control"] == "public, max-age=31536000, immutable"
    assert_error(file_of(client, media, "jpg"), 404, "not_found")
    other = upload(api, picture("PNG"), {"Content-Type": "image/png"})
    assert_error(file_of(client, other, "webp"), 404, "not_found")  # only a WebP has another


def test_a_webp_stored_before_renditions_gets_its_png_on_first_fetch(
    api, client, backend, database
):
    media = upload(api, picture("WEBP"), {"Content-Type": "image/webp"})
    forget_renditions(backend, database)
    first = file_of(client, media, "png")
    assert first.status_code == 200 and first.data.startswith(b"\x89PNG\r\n\x1a\n")
    again = file_of(client, media, "png")
    assert again.data == first.data and again.headers["ETag"] == first.headers["ETag"]


def forget_renditions(backend, database):
    """What a database migrated from before renditions holds: none."""
    if backend == "postgresql":
        with psycopg.connect(database, autocommit=True) as conn:
            conn.execute("DELETE FROM media_renditions")
        return
    import sqlite3

    with sqlite3.connect(database) as conn:
        conn.execute("DELETE FROM media_renditions")
