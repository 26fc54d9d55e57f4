"""shoe-daemon: the table-side service for an electronic Chemin de Fer / Punto Banco shoe."""

__version__ = "0.1.0"
