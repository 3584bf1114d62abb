"""`page_comment` (docs/decisions/pages.md, Notifications): a comment added to a page discussion tells the discussion's
participants (its creator and every earlier commenter) but its author, only those who may read the page, in a fixed
number of statements whatever their number. The resource is the page (core notify's 5-minute de-duplication per
user, type and page). Starting a discussion, editing, deleting or resolving tells nobody."""
import uuid
from datetime import timedelta

from sqlalchemy import select, update

from chalicelib.areas.pages.models import PageDiscussion
from chalicelib.core.ids import utcnow
from chalicelib.core.notify import Notification
from tests.areas.proposals.factories import create as create_proposal
from tests.factories import grant, make_user

from .factories import make_comment, make_discussion, make_page


def notices(db, user) -> list[Notification]:
    return list(db.scalars(select(Notification).where(Notification.user_id == user.id,
                                                      Notification.type == "page_comment")
                           .order_by(Notification.created_at)))


def comment(api, user, page_id, discussion_id, content="A reply", **body):
    return api.post(f"/api/pages/{page_id}/discussions/{discussion_id}/comments", as_=user,
                    json={"content": content, **body})


def test_the_participants_are_told_of_a_comment_and_its_author_is_not(api, db):
    creator, first, second = make_user(db, name="Cora"), make_user(db, name="Finn"), make_user(db, name="Sam")
    author = make_user(db, name="Ada Author")
    bystander = make_user(db)                      # reads the page, takes no part in the discussion
    page = make_page(db, title="Onboarding handbook", created_by=bystander.id)
    discussion = make_discussion(db, page, creator)
    make_comment(db, discussion, first)
    make_comment(db, discussion, second)
    make_comment(db, discussion, first)            # commented twice: told once
    make_comment(db, discussion, author)           # the author took part before: still not told of their own
    text = "Should the laptop order go out before the start date? " * 10
    response = comment(api, author, page.id, discussion.id, content=text)
    assert response.status == 201, response
    for person in (creator, first, second):
        [told] = notices(db, person)
        assert told.title == "Ada Author commented on Onboarding handbook"
        assert told.body == text[:200]
        assert (told.resource_type, told.resource_id, told.actor_id) == ("page", page.id, author.id)
        assert told.action_url == f"/pages/{page.id}#discussion-{discussion.id}"
    assert notices(db, author) == []
    assert notices(db, bystander) == []            # the page's creator is no participant


def test_starting_a_discussion_tells_nobody(api, db):
    """The creator of a new discussion is its only participant; the page's creator and its other readers are not
    told (the catalogue: a discussion you take part in)."""
    owner, author = make_user(db), make_user(db)
    page = make_page(db, created_by=owner.id, updated_by=owner.id)
    response = api.post(f"/api/pages/{page.id}/discussions", as_=author, json={
        "document_content": "the passage", "comment": "Is this still true?"})
    assert response.status == 201, response
    assert notices(db, owner) == [] and notices(db, author) == []
    # the first reply tells the discussion's creator
    assert comment(api, owner, page.id, response.json["discussion"]["id"], content="Yes").status == 201
    assert [n.body for n in notices(db, author)] == ["Yes"] and notices(db, owner) == []


def test_a_participant_who_cannot_read_the_page_is_told_nothing(api, db):
    """A proposal's page is read only by who sees the proposal; a participant who does not (or who holds pages:
    none) learns nothing of the comment; an executive participant (sees every proposal) is told."""
    owner = make_user(db, name="Olga Owner")
    colleague = make_user(db)                      # took part, but does not see the proposal
    blocked = make_user(db, access_level="head")   # sees every proposal, but pages: none
    grant(db, blocked, "pages", "none")
    executive = make_user(db, access_level="executive")
    pid = create_proposal(api, owner, title="Secret pitch")
    page_id = api.get(f"/api/proposals/{pid}", as_=owner).json["proposal"]["page_id"]
    discussion_id = api.post(f"/api/pages/{page_id}/discussions", as_=owner,
                             json={"comment": "First"}).json["discussion"]["id"]
    discussion = db.get(PageDiscussion, discussion_id)
    for person in (colleague, blocked, executive):
        make_comment(db, discussion, person)
    assert comment(api, owner, page_id, discussion_id, content="Our price is 10% lower").status == 201
    assert api.get(f"/api/pages/{page_id}", as_=colleague).status == 404   # indeed cannot read it
    assert api.get(f"/api/pages/{page_id}", as_=blocked).status == 403
    assert notices(db, colleague) == [] and notices(db, blocked) == []
    [told] = notices(db, executive)
    assert told.title == "Olga Owner commented on Secret pitch"
    assert told.body == "Our price is 10% lower"


def test_editing_deleting_or_resolving_tells_nobody(api, db):
    creator, author = make_user(db), make_user(db, access_level="head")   # head: pages:manage deletes
    page = make_page(db)
    discussion = make_discussion(db, page, creator)
    mine = make_comment(db, discussion, author)
    other = make_comment(db, discussion, author)
    path = f"/api/pages/{page.id}/discussions/{discussion.id}"
    assert api.patch(f"{path}/comments/{mine.id}", as_=author, json={"content": "Edited"}).status == 200
    assert api.delete(f"{path}/comments/{other.id}", as_=author).status == 200
    assert api.post(f"{path}/resolve", as_=author, json={}).status == 200
    assert notices(db, creator) == []
    assert comment(api, author, page.id, discussion.id, content="New").status == 201   # a comment in it does
    assert [n.body for n in notices(db, creator)] == ["New"]


def test_a_second_comment_within_5_minutes_is_not_told_again(api, db):
    """Core notify skips a notice when the same user, type and resource was notified in the last 5 minutes; the
    resource is the page, so a comment in another discussion of the same page is skipped too. Past 5 minutes the
    next comment is told."""
    creator, author = make_user(db), make_user(db, name="Ada")
    page = make_page(db, title="Roadmap")
    discussion, other = make_discussion(db, page, creator), make_discussion(db, page, creator)
    assert comment(api, author, page.id, discussion.id, content="One").status == 201
    assert comment(api, author, page.id, discussion.id, content="Two").status == 201
    assert comment(api, author, page.id, other.id, content="Three").status == 201
    [told] = notices(db, creator)
    assert told.body == "One"
    db.execute(update(Notification).where(Notification.id == told.id)
               .values(created_at=utcnow() - timedelta(minutes=6)))
    assert comment(api, author, page.id, other.id, content="Four").status == 201
    assert [n.body for n in notices(db, creator)] == ["One", "Four"]
    assert notices(db, creator)[1].action_url == f"/pages/{page.id}#discussion-{other.id}"


def test_a_failed_comment_leaves_no_notice(api, db):
    """The notice is written in the request's transaction: a comment refused (its id taken: 409) leaves none."""
    creator, author = make_user(db), make_user(db)
    page = make_page(db)
    discussion = make_discussion(db, page, creator)
    taken = make_comment(db, discussion, creator)
    assert comment(api, author, page.id, discussion.id, content="Lost", id=taken.id).status == 409
    assert notices(db, creator) == []
    assert comment(api, author, page.id, discussion.id, content="Kept").status == 201   # not de-duplicated away
    assert [n.body for n in notices(db, creator)] == ["Kept"]


def test_a_deactivated_participant_is_not_told(api, db):
    creator, active, author = make_user(db, is_active=False), make_user(db), make_user(db)
    page = make_page(db)
    discussion = make_discussion(db, page, creator)
    make_comment(db, discussion, active)
    assert comment(api, author, page.id, discussion.id, id=str(uuid.uuid4())).status == 201
    assert notices(db, creator) == [] and len(notices(db, active)) == 1


def test_the_notice_costs_the_same_for_2_and_20_participants(api, db, count_queries, aws):
    """With the notifications queue configured (as deployed), so that delivery is not counted. Participants of
    every access level: the page readers' check asks the narrower scopes in one statement."""
    author = make_user(db)
    counts = []
    for size in (2, 20):
        page = make_page(db)
        people = [make_user(db, access_level=("employee", "head", "manager")[n % 3]) for n in range(size)]
        discussion = make_discussion(db, page, people[0])
        for person in people[1:]:
            make_comment(db, discussion, person)
        with count_queries() as counter:
            assert comment(api, author, page.id, discussion.id).status == 201
        counts.append(counter.count)
        assert all(len(notices(db, person)) == 1 for person in people)
    assert counts[0] == counts[1], counts
