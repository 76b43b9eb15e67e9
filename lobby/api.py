"""REST endpoints for accounts: the player's own profile and API tokens for bots."""

from django.contrib.auth import authenticate, get_user_model
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.authtoken.models import Token
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import Profile, display_name_validator
from accounts.services import (
    DisplayNameTaken,
    DisplayNameTooSoon,
    email_is_verified,
    profile_ensure,
    profile_set_display_name,
    profile_set_sound_muted,
)
from lobby.suspension import SUSPENDED_LOGIN, account_suspended_for


class ProfileSerializer(serializers.Serializer):
    username = serializers.CharField(read_only=True)
    email = serializers.EmailField(read_only=True)
    email_verified = serializers.BooleanField(read_only=True)
    display_name = serializers.CharField(max_length=20, validators=[display_name_validator])
    sound_muted = serializers.BooleanField(
        required=False, help_text="The tables play no sounds for this player (their switch)."
    )


class CredentialsSerializer(serializers.Serializer):
    # No username is longer than the User model allows; a longer one is refused before login.
    username = serializers.CharField(
        max_length=get_user_model()._meta.get_field("username").max_length
    )
    password = serializers.CharField(style={"input_type": "password"}, trim_whitespace=False)


class TokenSerializer(serializers.Serializer):
    token = serializers.CharField()


# 400 bodies: `{"code", "message"}` for a body that is not one JSON object (config.api),
# `{"<field>": [...]}` for a field that is wrong, `{"detail"}` for wrong credentials.
BAD_REQUEST = OpenApiResponse(OpenApiTypes.OBJECT, description="the request was refused")


def _profile_payload(profile: Profile) -> dict:
    return {
        "username": profile.user.get_username(),
        "email": profile.user.email,
        "email_verified": email_is_verified(user=profile.user),
        "display_name": profile.display_name,
        "sound_muted": profile.sound_muted,
    }


class MeView(APIView):
    """The signed-in player's account."""

    @extend_schema(responses=ProfileSerializer)
    def get(self, request: Request) -> Response:
        return Response(_profile_payload(profile_ensure(user=request.user)))

    @extend_schema(
        request=ProfileSerializer(partial=True),
        responses={200: ProfileSerializer, 400: BAD_REQUEST},
    )
    def patch(self, request: Request) -> Response:
        """Change what is given: the display name, the tables' sound switch, or both."""
        serializer = ProfileSerializer(data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        changes = serializer.validated_data
        profile = profile_ensure(user=request.user)
        if "display_name" in changes:
            try:
                profile = profile_set_display_name(
                    user=request.user, display_name=changes["display_name"]
                )
            except (DisplayNameTaken, DisplayNameTooSoon) as exc:
                return Response({"display_name": [str(exc)]}, status=status.HTTP_400_BAD_REQUEST)
        if "sound_muted" in changes:
            profile = profile_set_sound_muted(user=request.user, muted=changes["sound_muted"])
        return Response(_profile_payload(profile))


class TokenView(APIView):
    """Exchange a username and password for an API token (for bots); lockout rules apply."""

    permission_classes = [AllowAny]
    authentication_classes: list = []

    @extend_schema(
        request=CredentialsSerializer, responses={200: TokenSerializer, 400: BAD_REQUEST}
    )
    def post(self, request: Request) -> Response:
        credentials = CredentialsSerializer(data=request.data)
        credentials.is_valid(raise_exception=True)
        user = authenticate(
            request=request._request,
            username=credentials.validated_data["username"],
            password=credentials.validated_data["password"],
        )
        if user is None and account_suspended_for(**credentials.validated_data):
            return Response(
                {"detail": str(SUSPENDED_LOGIN), "code": "account_suspended"},
                status=status.HTTP_400_BAD_REQUEST,
            )
        if user is None:
            return Response(
                {"detail": "Wrong username or password, or the account is locked."},
                status=status.HTTP_400_BAD_REQUEST,
            )
        token, _ = Token.objects.get_or_create(user=user)
        return Response({"token": token.key})
