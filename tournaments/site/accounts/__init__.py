"""Public pages: a player's account (sign up, log in and out, password reset and change, the
profile), their own entries (register, check in, withdraw: ``panel``), "my games" (``data``),
and the answer to a login locked out by django-axes (``lockout``)."""
