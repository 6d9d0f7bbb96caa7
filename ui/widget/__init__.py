"""Static files of the embeddable widget: ``widget.js`` and ``widget.css``, served by the app."""
