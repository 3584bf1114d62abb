"""The Work Management Service: registers the areas' blueprints (all, or those in WMS_MODULES)."""
from chalice import Chalice, CORSConfig

from chalicelib.areas import load_blueprint, selected_areas
from chalicelib.core import http

app = Chalice(app_name="wms")
app.api.binary_types = [
    "multipart/form-data", "image/*", "video/*", "audio/*", "application/pdf", "application/octet-stream",
]
app.api.cors = CORSConfig(allow_origin="*", allow_headers=["Authorization", "Content-Type"], allow_credentials=False)
http.install(app)

for area in selected_areas():
    app.register_blueprint(load_blueprint(area))

http.accept_any_content_type(app)
