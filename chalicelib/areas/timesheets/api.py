"""timesheets area routes (to be written)."""
from chalice import Blueprint

bp = Blueprint(__name__)
