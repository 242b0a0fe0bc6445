"""`python -m service.serve`: the web server; `breakeven serve` starts it so.

gevent patches the standard library here, first, before anything imports ssl, sockets or
threads, as its documentation asks: gunicorn's gevent workers then find it patched and warn
of nothing. The CLI cannot patch so early (it has imported the price adapters, and so ssl),
and neither can a module inside a package whose __init__ imports them (service.http).
"""

from gevent import monkey

monkey.patch_all()

from service.http.server import main  # noqa: E402  (after the patch, on purpose)

main()
