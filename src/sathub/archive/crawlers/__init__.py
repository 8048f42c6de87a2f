"""What the archive tells crawlers (docs/archive-crawlers.md): what they may walk (robots.py) and
what there is to walk, one sitemap index per list and one sitemap per month (sitemap.py, the
bytes; sitemap_door.py, the doors)."""
