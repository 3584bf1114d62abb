"""The Work Management Service: registers the areas' blueprints (all, or those in WMS_MODULES)."""
from chalice import Chalice, CORSConfig

from chalicelib.areas import load_blueprint, selected_areas
from chalicelib.core import http

app = Chalice(app_name="wms")
# Chalice matches binary types exactly; API Gateway also takes the wildcards. Keep in step with
# the page upload allow-list (chalicelib/areas/pages/service_uploads.py).
app.api.binary_types = [
    "multipart/form-data", "application/octet-stream", "application/pdf",
    "image/jpeg", "image/png", "image/gif", "image/webp", "image/svg+xml",
    "video/mp4", "video/webm", "audio/mpeg", "audio/wav", "audio/ogg",
    "image/*", "video/*", "audio/*",
]
app.api.cors = CORSConfig(allow_origin="*", allow_headers=["Authorization", "Content-Type"], allow_credentials=False)
http.install(app)

for area in selected_areas():
    app.register_blueprint(load_blueprint(area))

http.accept_any_content_type(app)
