"""The web front end: a FastAPI server (:mod:`.server`) over the games in memory (:mod:`.store`),
serving a single page of plain JavaScript modules (``static/``). Needs the ``play`` extra."""
