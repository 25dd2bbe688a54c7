"""An upload handler that refuses files over the dataset size limit before storing them."""

from django.conf import settings
from django.core.files.uploadhandler import StopUpload, TemporaryFileUploadHandler

# Room for the multipart envelope and the other form fields around the file.
ENVELOPE_BYTES = 64 * 1024


def size_words(n):
    """Return a size in plain words (``3.2 MB``)."""
    if n >= 2**30:
        return f"{n / 2**30:.1f} GB"
    if n >= 2**20:
        return f"{n / 2**20:.1f} MB"
    if n >= 2**10:
        return f"{n / 2**10:.1f} KB"
    return f"{n} bytes"


class LimitedUploadHandler(TemporaryFileUploadHandler):
    """Stream uploads to a temporary file; stop at ``CORELSWEB_MAX_UPLOAD_BYTES``.

    A refused upload leaves ``request.upload_refused`` (one plain sentence)
    for the view; nothing of the file is kept.
    """

    def handle_raw_input(self, input_data, META, content_length, boundary, encoding=None):
        limit = settings.CORELSWEB_MAX_UPLOAD_BYTES
        self.received = 0
        if content_length and content_length > limit + ENVELOPE_BYTES:
            # The request announces more than we accept: refuse before reading the file.
            self.request.upload_refused = f"The file is {size_words(content_length)}; the limit is {size_words(limit)}."
        return None

    def new_file(self, *args, **kwargs):
        if getattr(self.request, "upload_refused", None):
            # Read no further: the fields before the file (the CSRF token) are parsed already.
            raise StopUpload(connection_reset=True)
        super().new_file(*args, **kwargs)

    def receive_data_chunk(self, raw_data, start):
        self.received += len(raw_data)
        limit = settings.CORELSWEB_MAX_UPLOAD_BYTES
        if self.received > limit:
            self.request.upload_refused = f"The file is too large; the limit is {size_words(limit)}."
            self.file.close()
            raise StopUpload(connection_reset=False)
        return super().receive_data_chunk(raw_data, start)
