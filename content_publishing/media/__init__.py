"""The media library (docs/media.md): images and PDF documents, checked and
written anew with bounded work.

    library.py     what an upload must be, its metadata stripped, a WebP's PNG rendition
    images.py      an image decoded and written anew, after the caps on frames and pixels
    documents.py   a PDF read whole and written anew without its metadata or scripts
    bounded.py     the child process with memory, CPU and time limits both run in
"""
