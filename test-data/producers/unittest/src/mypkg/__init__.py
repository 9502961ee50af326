def render(text):
    return "<p>%s</p>" % text.upper()
