from django.contrib.auth import views as auth_views
from django.urls import path, reverse_lazy

from lobby import forms, views

app_name = "lobby"

urlpatterns = [
    path("", views.home, name="home"),
    path("join/", views.join_game, name="join_game"),
    path("help/", views.help_index, name="help"),
    path("help/<slug:slug>/", views.help_game, name="help_game"),
    path("accounts/signup/", views.signup, name="signup"),
    path("accounts/profile/", views.profile, name="profile"),
    path(
        "accounts/login/",
        auth_views.LoginView.as_view(
            template_name="accounts/login.html",
            redirect_authenticated_user=True,
            authentication_form=forms.LoginForm,
        ),
        name="login",
    ),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path(
        "accounts/password/",
        auth_views.PasswordChangeView.as_view(
            template_name="accounts/password_change.html",
            success_url=reverse_lazy("lobby:password_change_done"),
        ),
        name="password_change",
    ),
    # Password reset by e-mail: Django's views (token from default_token_generator, valid
    # PASSWORD_RESET_TIMEOUT; the page answers the same whether or not the address is known).
    path(
        "accounts/password/reset/",
        views.PasswordResetView.as_view(
            template_name="accounts/password_reset.html",
            email_template_name="accounts/password_reset_email.txt",
            subject_template_name="accounts/password_reset_subject.txt",
            success_url=reverse_lazy("lobby:password_reset_done"),
        ),
        name="password_reset",
    ),
    path(
        "accounts/password/reset/sent/",
        auth_views.PasswordResetDoneView.as_view(template_name="accounts/password_reset_done.html"),
        name="password_reset_done",
    ),
    path(
        "accounts/password/reset/<uidb64>/<token>/",
        auth_views.PasswordResetConfirmView.as_view(
            template_name="accounts/password_reset_confirm.html",
            success_url=reverse_lazy("lobby:password_reset_complete"),
        ),
        name="password_reset_confirm",
    ),
    path(
        "accounts/password/reset/complete/",
        auth_views.PasswordResetCompleteView.as_view(
            template_name="accounts/password_reset_complete.html"
        ),
        name="password_reset_complete",
    ),
    path("accounts/email/verify/", views.email_verify_send, name="email_verify_send"),
    path("accounts/email/verify/<str:token>/", views.email_verify, name="email_verify"),
    path(
        "accounts/password/done/",
        auth_views.PasswordChangeDoneView.as_view(
            template_name="accounts/password_change_done.html"
        ),
        name="password_change_done",
    ),
]
