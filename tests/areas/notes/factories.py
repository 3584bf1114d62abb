"""Notes written through the API, for the tests of the notes and portal areas."""
SHARED = ["client", "executive"]  # a note the client reads in the portal


def staff_note(api, user, project, content, visibility=SHARED, parent=None) -> str:
    """A note on `project` written by `user` (201), a reply when `parent` names one; answers its id."""
    made = api.post(f"/api/notes/project/{project.id}", as_=user,
                    json={"content": content, "visibility": visibility, "parent_id": parent})
    assert made.status == 201, made
    return made.json["id"]
