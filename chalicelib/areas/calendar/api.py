"""Calendar (tool `calendar`): provider events merged with synthetic events, settings and place search."""
from chalice import Blueprint

bp = Blueprint(__name__)
