from django.urls import path

from judge_site.lti import views

app_name = "lti"

# Exact paths: platforms are configured with them (docs/lti.md).
urlpatterns = [
    path("lti/jwks/", views.jwks, name="jwks"),
    path("lti/login/", views.login, name="login"),
    path("lti/launch/", views.launch, name="launch"),
    path("lti/deep-link/", views.deep_link, name="deep_link"),
]
