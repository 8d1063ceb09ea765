"""Public pages: events. The tournament page (``/tournaments/<slug>/``) and the embeds of its
standings and bracket (``/embed/tournaments/<slug>/...``).

- :mod:`~tournaments.site.events.views`: the views (thin: find the tournament its reader may
  see, assemble, render);
- :mod:`~tournaments.site.events.pages`: what the pages show, formatted from the selectors'
  reads (``tournaments.selectors``: events, standings, places, brackets), in a fixed number
  of queries;
- :mod:`~tournaments.site.events.snippets`: the code that embeds the standings or the bracket in
  another page (an ``<iframe>`` and our loader script, which sizes it);
- :mod:`~tournaments.site.events.bracket`: the knockout tree's geometry for the SVG picture;
- :mod:`~tournaments.site.events.words`: the rules, the stage plan and the money in words.
"""
