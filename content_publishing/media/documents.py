"""A PDF uploaded to the media library: checked by parsing it, and written
anew without its metadata (docs/media.md).

LinkedIn shows a PDF "document" post as a carousel of its pages. What the
library takes is a PDF that pypdf reads whole, at most MAX_PAGES pages, and
neither encrypted nor carrying an action that runs something: each refusal is
a Refused whose message says which. The PDF is then written anew from what
was read: its document information (author, producer, creation and
modification dates, the tool that made it) and its XMP metadata (the
catalog's, a page's or an image's) are left behind, as EXIF is from an
image, and so is every object no page or catalog entry refers to (an old
revision's text, say).

"Damaged" means what a reader cannot get past: a file cut short, a missing
trailer, a page tree or an object it names that cannot be read. Bytes inside
a page's drawing or an image are not decoded (LinkedIn renders them; a
reader skips what it cannot draw), so they are not checked.

"An action that runs something" is looked for in every object the document
reaches, and in what it carries: an XFA form's packets (a `<script>` there
runs when the form is opened), and its embedded files. An embedded PDF (one
a GoToE action opens, or a reader shows as an attachment) is checked as the
document itself is, down to MAX_NESTING levels; an embedded HTML, SVG or
JavaScript file that holds or is a script is refused too, since a viewer
may open it with a browser.

The work is bounded as an image's is (bounded.py): `clean` reads and writes
the PDF in a child process with memory and time limits, so that a crafted
file (object streams that inflate without end, objects nested or linked
without end) costs the web worker nothing.
"""

import io
import logging
import re
import struct

from pypdf import PdfReader, PdfWriter
from pypdf.errors import PyPdfError
from pypdf.generic import (
    ArrayObject,
    DictionaryObject,
    IndirectObject,
    NameObject,
    StreamObject,
)

from content_publishing.media import bounded

MAX_PAGES = 300  # LinkedIn's limit for a document post
MEMORY_BYTES = 768 * 1024 * 1024  # a PDF of 100 MiB is read and written anew in well under this
SECONDS = 20  # under gunicorn's timeout (30 s): the worker answers in time
# Actions that run something when the PDF is opened or touched: JavaScript,
# and a Launch action, which starts a program.
RUNNING_ACTIONS = {"/JavaScript": "a JavaScript action", "/Launch": "a Launch action"}
MAX_NESTING = 3  # PDFs embedded in PDFs embedded in the upload, at most
SCRIPT = re.compile(
    rb"<(?:[A-Za-z_][\w.-]*:)?script[\s>/]", re.IGNORECASE
)  # <script>, <x:script ...>
SCRIPT_TYPES = frozenset(
    {
        "/application/javascript",
        "/application/x-javascript",
        "/text/javascript",
        "/application/ecmascript",
        "/text/ecmascript",
    }
)
SCRIPT_EXTENSIONS = (".js", ".mjs", ".jse", ".vbs", ".wsf", ".hta")

logging.getLogger("pypdf").setLevel(logging.ERROR)  # its repair notes are not ours to log


Refused = bounded.Refused


def clean(data):
    """(the PDF written anew without metadata, pages, width, height of the
    first page in points, as shown), or Refused saying why not. In a child
    process with limits (bounded.py)."""
    answer = bounded.run(
        lambda upload: _packed(*_read(upload)),
        data,
        what="PDF",
        verb=("read", "read"),
        seconds=SECONDS,
        memory_bytes=MEMORY_BYTES,
        max_output=2 * len(data) + 2**20,
    )
    pages, width, height = struct.unpack(">III", answer[:12])
    return answer[12:], pages, width, height


def _packed(written, pages, width, height):
    return struct.pack(">III", pages, width, height) + written


def _read(data):
    """What the child does: (the PDF written anew, pages, width, height)."""
    if not data.startswith(b"%PDF-"):
        raise Refused("The body is not a PDF (it does not start with %PDF-).")
    try:
        reader = PdfReader(io.BytesIO(data), strict=False)
        if reader.is_encrypted:
            raise Refused(
                "The PDF is encrypted (a password or permissions are set), and LinkedIn cannot "
                "show an encrypted document: save it without encryption and upload it again."
            )
        pages = len(reader.pages)
        _check_pages(pages)
        width, height = _shown_size(reader.pages[0])
        found = _running_action(reader.trailer)
        if found:
            raise Refused(
                f"The PDF holds {found}, which runs code when the document is opened or used; "
                "the library keeps no such document. Save it without scripts and upload it again."
            )
        written = _written_anew(reader)
    except Refused:
        raise
    except (PyPdfError, ValueError, KeyError, TypeError, AttributeError, IndexError) as e:
        raise Refused(f"The PDF is damaged and cannot be read ({type(e).__name__}: {e}).") from None
    except RecursionError:
        raise Refused("The PDF is damaged: its objects nest without end.") from None
    return written, pages, width, height


def _check_pages(pages):
    if pages == 0:
        raise Refused("The PDF has no page.")
    if pages > MAX_PAGES:
        raise Refused(f"The PDF has {pages:,} pages; LinkedIn takes at most {MAX_PAGES}.")


def _shown_size(page):
    """(width, height) of the page in points as a viewer shows it: its
    crop box, turned by its rotation."""
    box = page.cropbox
    width, height = round(abs(float(box.width))), round(abs(float(box.height)))
    if int(page.get("/Rotate", 0) or 0) % 180:
        width, height = height, width
    if width <= 0 or height <= 0:
        raise Refused("The PDF's first page has no size.")
    return width, height


def _objects(start):
    """Every dictionary reachable from `start`, each once, following
    references (an action may hide behind any of them)."""
    seen, stack = set(), [start]
    while stack:
        item = stack.pop()
        if isinstance(item, IndirectObject):
            key = (item.idnum, item.generation)
            if key in seen:
                continue
            seen.add(key)
            item = item.get_object()
        if isinstance(item, DictionaryObject):  # a stream's dictionary included
            yield item
            stack.extend(item.values())
        elif isinstance(item, ArrayObject):
            stack.extend(item)


def _running_action(trailer, depth=0):
    """What runs something in the document (RUNNING_ACTIONS), or None: an
    action of such a type anywhere (an open action, a page's or a field's
    additional actions, a link), a /JS entry, a document-level JavaScript
    name tree, an XFA form's script, or an embedded file that runs
    something (`depth`: how deep this document is embedded)."""
    for item in _objects(trailer):
        kind = item.get("/S")
        if kind in RUNNING_ACTIONS:
            return RUNNING_ACTIONS[kind]
        if "/JS" in item or "/JavaScript" in item:
            return RUNNING_ACTIONS["/JavaScript"]
        if "/XFA" in item and SCRIPT.search(_xfa_packets(item["/XFA"])):
            return "an XFA form with a script"
        if "/EF" in item:
            found = _embedded(item, depth)
            if found:
                return found
    return None


def _xfa_packets(xfa):
    """An XFA form's XML: one stream, or an array of names and streams."""
    xfa = xfa.get_object()
    parts = xfa if isinstance(xfa, ArrayObject) else [xfa]
    streams = (part.get_object() for part in parts)
    return b"".join(part.get_data() for part in streams if isinstance(part, StreamObject))


def _embedded(filespec, depth):
    """What an embedded file (a file specification with /EF) runs, or None:
    a PDF's running action, or a script."""
    name = str(filespec.get("/UF") or filespec.get("/F") or "unnamed")
    files = filespec["/EF"].get_object()
    for stream in (f.get_object() for f in files.values()):
        if not isinstance(stream, StreamObject):
            continue
        data = stream.get_data()
        if b"%PDF-" in data[:1024]:
            found = _embedded_pdf(data, depth)
        else:
            found = "a script" if _is_script(stream, name, data) else None
        if found:
            return f"an embedded file ({name}) holding {found}"
    return None


def _embedded_pdf(data, depth):
    """What an embedded PDF runs, read as the upload is, or None."""
    if depth + 1 > MAX_NESTING:
        return f"PDFs embedded more than {MAX_NESTING} deep, which are not read"
    reader = PdfReader(io.BytesIO(data), strict=False)
    if reader.is_encrypted:
        return "an encrypted PDF, which cannot be read to check it"
    return _running_action(reader.trailer, depth + 1)


def _is_script(stream, name, data):
    """A script, or markup that holds one (HTML, SVG, XHTML), by its type,
    its name or what it holds."""
    kind = str(stream.get("/Subtype", "")).replace("#2F", "/").lower()
    if kind in SCRIPT_TYPES or name.lower().endswith(SCRIPT_EXTENSIONS):
        return True
    return SCRIPT.search(data) is not None


def _written_anew(reader):
    """The document cloned from what was read, without its information
    dictionary, XMP metadata or unreferenced objects."""
    writer = PdfWriter(clone_from=reader)
    writer.metadata = None  # no /Info at all: pypdf would otherwise add its own /Producer
    for item in list(_objects(writer.root_object)):
        if "/Metadata" in item:
            del item[NameObject("/Metadata")]
        if "/PieceInfo" in item:  # an editor's private data (Illustrator, Acrobat)
            del item[NameObject("/PieceInfo")]
    writer.compress_identical_objects(remove_duplicates=False, remove_unreferenced=True)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()
